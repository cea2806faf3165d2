// The generators' view of the rule vocabulary (runtime/schema/rules, one file per kind):
// parameter checks for the spec checker, one sentence per rule for the published descriptions,
// and the CEL lowering for CRD bodies.
import type { RuleSpec, Schema, ValidationRule } from '../runtime/schema/types.ts';
import { getRule } from '../runtime/schema/rules/index.ts';

/** Returns a message when a rule's kind is unknown or its parameters do not fit the node. */
export function checkRuleSpec(rule: unknown, node: Schema, resolve: (s: Schema) => Schema): string | undefined {
  if (!rule || typeof rule !== 'object' || typeof (rule as RuleSpec).rule !== 'string') return 'a rule is a map with a `rule` kind';
  const spec = rule as RuleSpec;
  const kind = getRule(spec.rule);
  if (!kind) return `unknown rule kind ${spec.rule} (spec/README.md lists the vocabulary)`;
  return kind.checkParams(spec, node, { featureGates: {}, resolve }) ?? undefined;
}

export function describeRule(rule: RuleSpec): string {
  return getRule(rule.rule)?.describe(rule) ?? '';
}

/** A rule as a CRD's CEL validation, or why it cannot be one. */
export function lowerRule(rule: RuleSpec, node?: Schema): { cel: ValidationRule } | { reason: string } {
  const kind = getRule(rule.rule);
  if (!kind) return { reason: `unknown rule kind ${rule.rule}` };
  const lowered = kind.toCel(rule, node);
  return lowered.rule ? { cel: lowered.rule } : { reason: lowered.reason };
}
