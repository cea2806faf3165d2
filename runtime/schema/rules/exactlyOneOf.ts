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
    if (p.countOnly !== undefined) {
      const countOnly = stringList(p, 'countOnly');
      if (!countOnly || countOnly.some((f) => !fields.includes(f))) return '`countOnly` must list some of `fields`';
    }
    return checkFields(node, fields, env);
  },
  compile(p) {
    const fields = stringList(p, 'fields') ?? [];
    const countOnly = new Set(stringList(p, 'countOnly') ?? []);
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
          if (countOnly.has(f)) continue;
          ctx.add(fieldErr.forbidden(childPath(ctx.path(), f), message ?? multi));
        }
        if (count === 0) ctx.add(fieldErr.required(ctx.path(), message ?? req));
      },
    };
  },
  toCel(p) {
    const fields = stringList(p, 'fields') ?? [];
    const countOnly = new Set(stringList(p, 'countOnly') ?? []);
    const [req, multi] = msgs(p, fields);
    const sum = (fs: string[]): string => (fs.length ? fs.map((f) => `(${celHas('self', f)} ? 1 : 0)`).join(' + ') : '0');
    const count = sum(fields);
    // A countOnly field set is never reported, but a checked field after it is; none after a checked one either.
    const valid = countOnly.size === 0
      ? `${count} == 1`
      : `${count} >= 1 && ${sum(fields.filter((f) => !countOnly.has(f)))} <= 1 && ${fields
        .map((f, i) => (countOnly.has(f) ? `(!${celHas('self', f)} || ${sum(fields.slice(i + 1).filter((g) => !countOnly.has(g)))} == 0)` : null))
        .filter((c) => c !== null)
        .join(' && ')}`;
    return {
      rule: {
        rule: valid,
        message: stringParam(p, 'message') ?? req,
        messageExpression: `${count} == 0 ? ${celString(req)} : ${celString(multi)}`,
      },
    };
  },
  describe(p) {
    const countOnly = stringList(p, 'countOnly') ?? [];
    const beside = countOnly.length ? ` (${quoteFields(countOnly)} may also be set beside one listed before it)` : '';
    return `Exactly one of ${quoteFields(stringList(p, 'fields') ?? [])} must be set${beside}.`;
  },
};
