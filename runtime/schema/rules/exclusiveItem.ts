import type { RuleKind } from './types.ts';
import { fieldErr } from '../errors.ts';
import { celLiteral, stringParam } from './util.ts';

function message(p: Record<string, unknown>): string {
  return typeof p.message === 'string' ? p.message : `may not use ${String(p.value)} with other items`;
}

export const exclusiveItem: RuleKind = {
  kind: 'exclusiveItem',
  checkParams(p, node, env) {
    if (p.value === undefined || (typeof p.value === 'object' && p.value !== null)) return '`value` must be a scalar';
    if (p.reason !== undefined && p.reason !== 'invalid' && p.reason !== 'forbidden') return '`reason` must be `invalid` or `forbidden`';
    const t = env.resolve(node).type;
    if (t !== undefined && t !== 'array') return 'exclusiveItem applies to lists';
    return null;
  },
  compile(p) {
    const value = p.value;
    const invalid = p.reason === 'invalid';
    const msg = message(p);
    return {
      check(v, _old, ctx) {
        if (!Array.isArray(v) || v.length < 2 || !v.includes(value)) return;
        if (invalid) ctx.add(fieldErr.invalid(ctx.path(), v, msg)); // upstream shows the whole list
        else ctx.add(fieldErr.forbidden(ctx.path(), msg));
      },
    };
  },
  toCel(p) {
    return {
      rule: {
        rule: `!(${celLiteral(p.value)} in self) || self.size() == 1`,
        message: message(p),
        ...(p.reason === 'invalid' ? {} : { reason: 'FieldValueForbidden' }),
      },
    };
  },
  describe(p) {
    void stringParam;
    return `${JSON.stringify(p.value)} may not be combined with other items.`;
  },
};
