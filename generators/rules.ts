// The generators' view of the rule vocabulary (runtime/schema/rules): one sentence per rule for
// descriptions, parameter checks for the spec checker, CEL lowering for CRD bodies.
import type { RuleSpec, ValidationRule } from '../runtime/schema/types.ts';

export function describeRule(rule: RuleSpec): string {
  return rule.rule === 'note' ? `${String(rule.text ?? '')}` : '';
}

/** Returns a message when a rule's kind is unknown or its parameters do not fit the node. */
export function checkRuleSpec(rule: unknown, _node: unknown, _resolve: unknown): string | undefined {
  if (!rule || typeof rule !== 'object' || typeof (rule as { rule?: unknown }).rule !== 'string') return 'a rule is a map with a `rule` kind';
  return undefined;
}

/** A rule as a CRD's CEL validation, or why it cannot be one. */
export function lowerRule(rule: RuleSpec): { cel: ValidationRule } | { reason: string } {
  return { reason: `rule kind ${rule.rule} has no CEL lowering yet` };
}
