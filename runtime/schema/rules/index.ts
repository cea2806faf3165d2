// The registry of declarative rule kinds (x-cluster-rules), one file per kind.
import type { RuleKind } from './types.ts';
import { immutable } from './immutable.ts';
import { immutableWhen } from './immutableWhen.ts';
import { exactlyOneOf } from './exactlyOneOf.ts';
import { atMostOneOf } from './atMostOneOf.ts';
import { requires } from './requires.ts';
import { disjointKeys } from './disjointKeys.ts';
import { maxTotalBytes } from './maxTotalBytes.ts';
import { keySyntax } from './keySyntax.ts';
import { syntax } from './syntax.ts';
import { requiredKeysWhen } from './requiredKeysWhen.ts';
import { uniqueBy } from './uniqueBy.ts';
import { distinct } from './distinct.ts';
import { resourceWildcards } from './resourceWildcards.ts';
import { exclusiveItem } from './exclusiveItem.ts';
import { nonEmpty } from './nonEmpty.ts';
import { quantityRange } from './quantityRange.ts';
import { equalWhenBothSet } from './equalWhenBothSet.ts';
import { note } from './note.ts';
import { labelMap } from './labelMap.ts';
import { standardFinalizers } from './standardFinalizers.ts';
import { absentAsZero } from './absentAsZero.ts';
import { servicePath } from './servicePath.ts';
import { secretReference } from './secretReference.ts';
import { itemsAtParent } from './itemsAtParent.ts';
import { requiredReportedAt } from './requiredReportedAt.ts';
import { int64String } from './int64String.ts';
import { ratchetedItemEnum } from './ratchetedItemEnum.ts';
import { checkedByList } from './checkedByList.ts';
import { requiredEnum } from './requiredEnum.ts';
import { forbiddenFields } from './forbiddenFields.ts';

export type { RuleKind, RuleCheck, CompiledRule, CelLowering, RuleEnv } from './types.ts';

export const RULES: ReadonlyMap<string, RuleKind> = new Map(
  [
    immutable, immutableWhen, exactlyOneOf, atMostOneOf, requires, disjointKeys, maxTotalBytes, keySyntax, syntax,
    requiredKeysWhen, uniqueBy, distinct, resourceWildcards, exclusiveItem, nonEmpty, quantityRange, equalWhenBothSet, note,
    labelMap, standardFinalizers, absentAsZero, servicePath, secretReference, itemsAtParent, requiredReportedAt, int64String,
    ratchetedItemEnum, checkedByList, requiredEnum, forbiddenFields,
  ].map((r) => [r.kind, r]),
);

/** The rule kind, or undefined when unknown (an unknown kind is a compile error). */
export function getRule(kind: string): RuleKind | undefined {
  return RULES.get(kind);
}
