import type { RuleKind } from './types.ts';
import { fieldErr, childPath } from '../errors.ts';
import { celHas, checkFields, getPath, isObject, isSet, quoteFields, stringList, stringParam, celString } from './util.ts';

function msgs(p: Record<string, unknown>, fields: string[]): [string, string] {
  return [
    typeof p.requiredMessage === 'string' ? p.requiredMessage : `must specify exactly one of: ${quoteFields(fields)}`,
    typeof p.multipleMessage === 'string' ? p.multipleMessage : `may not specify more than one of: ${quoteFields(fields)}`,
  ];
}

export const exactlyOneOf: RuleKind = {
  kind: 'exactlyOneOf',
  checkParams(p, node, env) {
    const fields = stringList(p, 'fields');
    if (!fields || fields.length < 2) return '`fields` must list at least two field names';
    return checkFields(node, fields, env);
  },
  compile(p) {
    const fields = stringList(p, 'fields') ?? [];
    const [req, multi] = msgs(p, fields);
    const message = stringParam(p, 'message');
    return {
      check(v, _old, ctx) {
        if (!isObject(v)) return;
        let first = true;
        let count = 0;
        for (const f of fields) {
          if (!isSet(getPath(v, f))) continue;
          count++;
          if (first) { first = false; continue; }
          ctx.add(fieldErr.forbidden(childPath(ctx.path(), f), message ?? multi));
        }
        if (count === 0) ctx.add(fieldErr.required(ctx.path(), message ?? req));
      },
    };
  },
  toCel(p) {
    const fields = stringList(p, 'fields') ?? [];
    const [req, multi] = msgs(p, fields);
    const count = fields.map((f) => `(${celHas('self', f)} ? 1 : 0)`).join(' + ');
    return {
      rule: {
        rule: `${count} == 1`,
        message: stringParam(p, 'message') ?? req,
        messageExpression: `${count} == 0 ? ${celString(req)} : ${celString(multi)}`,
      },
    };
  },
  describe(p) {
    return `Exactly one of ${quoteFields(stringList(p, 'fields') ?? [])} must be set.`;
  },
};
