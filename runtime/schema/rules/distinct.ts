// `distinct`: the items of a list (or their `key` field) are unique, reported once at the list as
// upstream's hand-written checks word it (`spec.versions: Invalid value: [...]: must contain unique
// version names`). One pass with a set: the CEL form (every item against every other) is quadratic,
// and built-in rules run without a cost budget.
import type { RuleKind } from './types.ts';
import { fieldErr } from '../errors.ts';
import { canonicalJSON, celName, getField } from './util.ts';

export const distinct: RuleKind = {
  kind: 'distinct',
  checkParams(p, node, env) {
    if (typeof p.message !== 'string' || p.message === '') return '`message` is required';
    if (p.key !== undefined && typeof p.key !== 'string') return '`key` must be a field name';
    const s = env.resolve(node);
    if (s.type !== undefined && s.type !== 'array') return 'distinct applies to lists';
    const items = s.items ? env.resolve(s.items) : undefined;
    if (typeof p.key === 'string' && items?.properties && !Object.prototype.hasOwnProperty.call(items.properties, p.key)) {
      return `field ${JSON.stringify(p.key)} is not a property of the list items`;
    }
    return null;
  },
  compile(p) {
    const key = typeof p.key === 'string' ? p.key : undefined;
    const message = p.message as string;
    return {
      check(v, _old, ctx) {
        if (!Array.isArray(v) || v.length < 2) return;
        const seen = new Set<string>();
        for (const item of v) {
          const kv = key === undefined ? item : getField(item, key);
          if (kv === undefined) continue;
          const id = canonicalJSON(kv);
          if (seen.has(id)) {
            ctx.add(fieldErr.invalid(ctx.path(), v, message));
            return;
          }
          seen.add(id);
        }
      },
    };
  },
  toCel(p) {
    const key = typeof p.key === 'string' ? celName(p.key) : undefined;
    const rule = key === undefined ? 'self.all(x, self.exists_one(y, y == x))' : `self.all(x, self.exists_one(y, y.${key} == x.${key}))`;
    return { rule: { rule, message: p.message as string } };
  },
  describe(p) {
    return typeof p.key === 'string' ? `Items must have unique \`${p.key}\` values.` : 'Items must be unique.';
  },
};
