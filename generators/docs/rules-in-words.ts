// The rules of one field, each in words (the rule vocabulary's sentence, or a CEL rule's message)
// and as the CEL rule a CRD body carries, with its message, reason and field path.
import type { RuleSpec, Schema } from '../../runtime/schema/types.ts';
import { describeRule, lowerRule } from '../rules.ts';

export interface DocumentedRule {
  /** The rule kind (`immutable`, `exactlyOneOf`, ... or `cel` for a free CEL rule). */
  kind: string;
  words: string;
  /** The CEL rule, or absent with `notCel` saying why it has none. */
  cel?: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  notCel?: string;
  /** Who enforces a note (strategy, controller, node, ...); undefined: the validators. */
  enforcedBy?: string;
  source?: string;
}

/** Notes for implementers (upstream's error wording, how the server does it) stay out of the reference, as out of the OpenAPI documents. */
const forUsers = (r: RuleSpec): boolean => !(r.rule === 'note' && r.audience === 'implementers');

export function rulesOf(schema: Schema): DocumentedRule[] {
  const specs: RuleSpec[] = (schema['x-cluster-rules'] ?? []).filter(forUsers);
  if (schema['x-cluster-immutable'] && !specs.some((r) => r.rule === 'immutable')) specs.unshift({ rule: 'immutable' });
  const out: DocumentedRule[] = specs.map((spec) => {
    const lowered = spec.rule === 'note' ? { reason: '' } : lowerRule(spec, schema);
    const base: DocumentedRule = { kind: spec.rule, words: describeRule(spec), source: typeof spec.source === 'string' ? spec.source : undefined };
    if (spec.rule === 'note') return { ...base, enforcedBy: typeof spec.enforcedBy === 'string' ? spec.enforcedBy : 'another component' };
    if ('cel' in lowered) {
      const c = lowered.cel;
      return { ...base, cel: c.rule, message: c.message, messageExpression: c.messageExpression, reason: c.reason, fieldPath: c.fieldPath };
    }
    return { ...base, notCel: lowered.reason };
  });
  for (const v of schema['x-cluster-validations'] ?? []) {
    const failure = `${v.reason ?? 'FieldValueInvalid'}${v.fieldPath ? ` at ${v.fieldPath}` : ''}`;
    const words = v.message || (v.messageExpression ? `A CEL rule whose message is computed; on failure: ${failure}.` : `A CEL rule; on failure: ${failure}.`);
    out.push({ kind: 'cel', words, cel: v.rule, message: v.message, messageExpression: v.messageExpression, reason: v.reason, fieldPath: v.fieldPath });
  }
  return out;
}

/** Whether the field cannot change once written (an immutable rule of any form). */
export const isImmutable = (schema: Schema): boolean =>
  schema['x-cluster-immutable'] === true || (schema['x-cluster-rules'] ?? []).some((r) => r.rule === 'immutable');
