// The CEL rule engine CRD schemas are compiled with. Differences from the shared celRuleEngine:
// - the root of a CRD schema is always a resource (apiVersion, kind, metadata.name and
//   metadata.generateName are visible to its rules even when the schema does not declare them);
// - no per-rule estimate cap inside the engine: cel-rules.ts applies upstream's limits itself
//   (with list/map cardinalities) when the CRD is written, so serving never rejects a rule.
import { createCelRuleEngine, defaultIsResource, type CompiledValidationRule } from '../cel/index.ts';
import type { CelRuleEngine, Schema, ValidationRule } from '../schema/types.ts';

const roots = new WeakSet<object>();

/** Marks a schema object as the root of a custom resource (call before compiling its rules). */
export function markResourceRoot(schema: Schema): Schema {
  roots.add(schema);
  return schema;
}

export interface CrdRuleEngine extends CelRuleEngine {
  compileRule(rule: ValidationRule, scope: Schema, definitions: Record<string, Schema>): CompiledValidationRule;
}

export const crdRuleEngine: CrdRuleEngine = createCelRuleEngine({
  maxEstimatedCost: Number.POSITIVE_INFINITY,
  isResource: (s) => roots.has(s) || defaultIsResource(s),
});
