import type { RuleKind } from './types.ts';
import { fieldErr, childPath } from '../errors.ts';
import { celHas, checkFields, getPath, isObject, isSet, quoteFields, stringList, stringParam } from './util.ts';

function message(p: Record<string, unknown>, fields: string[]): string {
  return typeof p.message === 'string' ? p.message : `may not specify more than one of: ${quoteFields(fields)}`;
}

export const atMostOneOf: RuleKind = {
  kind: 'atMostOneOf',
  checkParams(p, node, env) {
    const fields = stringList(p, 'fields');
    if (!fields || fields.length < 2) return '`fields` must list at least two field names';
    if (p.message !== undefined && typeof p.message !== 'string') return '`message` must be a string';
    return checkFields(node, fields, env);
  },
  compile(p) {
    const fields = stringList(p, 'fields') ?? [];
    const msg = message(p, fields);
    return {
      check(v, _old, ctx) {
        if (!isObject(v)) return;
        let seen = false;
        for (const f of fields) {
          if (!isSet(getPath(v, f))) continue;
          if (seen) ctx.add(fieldErr.forbidden(childPath(ctx.path(), f), msg));
          seen = true;
        }
      },
    };
  },
  toCel(p) {
    const fields = stringList(p, 'fields') ?? [];
    const count = fields.map((f) => `(${celHas('self', f)} ? 1 : 0)`).join(' + ');
    return { rule: { rule: `${count} <= 1`, message: message(p, fields), reason: 'FieldValueForbidden' } };
  },
  describe(p) {
    void stringParam;
    return `At most one of ${quoteFields(stringList(p, 'fields') ?? [])} may be set.`;
  },
};
