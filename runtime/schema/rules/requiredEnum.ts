// `requiredEnum`: a required string with an `enum`, checked as upstream's hand-written validation
// does (validateCustomResourceDefinitionSpec's scope): absent, null or empty is `Required value`,
// any other value outside the enum `Unsupported value`. The schema tree's own enum and required
// checks step aside (checksEnumAndAbsence): an empty string would otherwise be Unsupported.
import type { RuleKind } from './types.ts';
import { fieldErr } from '../errors.ts';
import { stringParam } from './util.ts';
import type { RuleEnv } from './types.ts';
import type { Schema } from '../types.ts';

function enumOf(node: Schema, env: RuleEnv): string[] | null {
  const values = env.resolve(node).enum;
  return Array.isArray(values) && values.length > 0 && values.every((v) => typeof v === 'string') ? (values as string[]) : null;
}

export const requiredEnum: RuleKind = {
  kind: 'requiredEnum',
  checksEnumAndAbsence: true,
  checkParams(p, node, env) {
    if (p.message !== undefined && typeof p.message !== 'string') return '`message` must be a string';
    return enumOf(node, env) ? null : 'requiredEnum applies to a string node with an `enum` of strings';
  },
  compile(p, node, env) {
    const values = enumOf(node, env) ?? [];
    const allowed = new Set(values);
    const detail = stringParam(p, 'message') ?? '';
    return {
      whenAbsent: true,
      check(v, _old, ctx) {
        if (v === undefined || v === null || v === '') ctx.add(fieldErr.required(ctx.path(), detail));
        else if (typeof v === 'string' && !allowed.has(v)) ctx.add(fieldErr.notSupported(ctx.path(), v, values));
      },
    };
  },
  toCel() {
    return { rule: null, reason: 'a CRD schema checks the enum and required itself' };
  },
  describe() {
    return 'Required.';
  },
};
