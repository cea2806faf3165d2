// The strategies of the resources that need behaviour beyond their schema, by kind.

import type { Strategy } from '../strategy.ts';
import { customResourceDefinitionStrategy } from './customresourcedefinition.ts';
import { namespaceStrategy } from './namespace.ts';
import { secretStrategy } from './secret.ts';
import { statusKeepsMetadataStrategy } from './status-metadata.ts';

const STRATEGIES: Record<string, Strategy> = {
  Secret: secretStrategy,
  Namespace: namespaceStrategy,
  VolumeAttachment: statusKeepsMetadataStrategy,
  CustomResourceDefinition: customResourceDefinitionStrategy,
};

export function strategyFor(kind: string): Strategy {
  return STRATEGIES[kind] ?? {};
}
