// The named cell formatters a printer column may use (`formatter:` in spec/resources/<kind>.yaml).
import type { CellFormatter } from './types.ts';
import { age } from './age.ts';
import { accessModes } from './access-modes.ts';
import { claimRef } from './claim-ref.ts';
import { quantity } from './quantity.ts';
import { phaseOrTerminating } from './phase-or-terminating.ts';
import { boundClaimCapacity } from './bound-claim-capacity.ts';
import { boundClaimAccessModes } from './bound-claim-access-modes.ts';
import { defaultClassName } from './default-class-name.ts';
import { tokenAudiences } from './token-audiences.ts';
import { groupVersionResource } from './group-version-resource.ts';
import { eventCount, eventFirstSeen, eventLastSeen } from './event-seen.ts';
import { eventObject } from './event-object.ts';
import { eventSource } from './event-source.ts';
import { trimSpace } from './trim-space.ts';

export type { CellFormatter } from './types.ts';

export const cellFormatters: Readonly<Record<string, CellFormatter>> = {
  age,
  accessModes,
  claimRef,
  quantity,
  phaseOrTerminating,
  boundClaimCapacity,
  boundClaimAccessModes,
  defaultClassName,
  tokenAudiences,
  groupVersionResource,
  eventLastSeen,
  eventFirstSeen,
  eventCount,
  eventObject,
  eventSource,
  trimSpace,
};
