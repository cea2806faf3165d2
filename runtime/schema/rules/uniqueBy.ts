import type { RuleKind } from './types.ts';
import { fieldErr } from '../errors.ts';
import { canonicalJSON, celName, getField, stringParam } from './util.ts';

export const uniqueBy: RuleKind = {
  kind: 'uniqueBy',
  checkParams(p, node, env) {
    if (typeof p.key !== 'string') return '`key` is required';
    const s = env.resolve(node);
    if (s.type !== undefined && s.type !== 'array') return 'uniqueBy applies to lists';
    const items = s.items ? env.resolve(s.items) : undefined;
    if (items?.properties && !Object.prototype.hasOwnProperty.call(items.properties, p.key)) {
      return `field ${JSON.stringify(p.key)} is not a property of the list items`;
    }
    return null;
  },
  compile(p) {
    const key = p.key as string;
    return {
      check(v, _old, ctx) {
        if (!Array.isArray(v) || v.length < 2) return;
        const seen = new Set<string>();
        for (let i = 0; i < v.length; i++) {
          const kv = getField(v[i], key);
          if (kv === undefined) continue;
          const id = canonicalJSON(kv);
          if (seen.has(id)) ctx.add(fieldErr.duplicate(`${ctx.path()}[${i}].${key}`, kv));
          else seen.add(id);
        }
      },
    };
  },
  toCel(p) {
    const k = celName(p.key as string);
    return {
      rule: {
        rule: `self.all(x, !has(x.${k}) || self.exists_one(y, has(y.${k}) && y.${k} == x.${k}))`,
        message: stringParam(p, 'message') ?? `${String(p.key)} must be unique`,
        reason: 'FieldValueDuplicate',
      },
    };
  },
  describe(p) {
    return `Items must have unique \`${String(p.key)}\` values.`;
  },
};
