// `distinct`: the items of a list (or their `key` field) are unique, reported once at the list as
// upstream's hand-written checks word it (`spec.versions: Invalid value: [...]: must contain unique
// version names`). One pass with a set: the CEL form (every item against every other) is quadratic,
// and built-in rules run without a cost budget.
// `duplicateAt` words it as other upstream checks do instead: `item` reports every repeat at its
// index (`values[1]: Duplicate value: "a"`), `parent` reports each repeated value at the object
// that holds the list (`spec.drivers[0]: Duplicate value: "zone"`); `duplicateReason: invalid`
// words each as `Invalid value: "v1": <message>` instead (admissionReviewVersions[1]: duplicate version).
import type { RuleKind } from './types.ts';
import { fieldErr } from '../errors.ts';
import { canonicalJSON, celName, getField } from './util.ts';

export const distinct: RuleKind = {
  kind: 'distinct',
  checkParams(p, node, env) {
    if (typeof p.message !== 'string' || p.message === '') return '`message` is required';
    if (p.key !== undefined && typeof p.key !== 'string') return '`key` must be a field name';
    if (p.duplicateAt !== undefined && p.duplicateAt !== 'item' && p.duplicateAt !== 'parent') return '`duplicateAt` must be item or parent';
    if (p.duplicateReason !== undefined && (p.duplicateReason !== 'invalid' || p.duplicateAt === undefined)) return '`duplicateReason` may only be invalid, with `duplicateAt`';
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
    const at = p.duplicateAt as 'item' | 'parent' | undefined;
    const asInvalid = p.duplicateReason === 'invalid';
    if (at !== undefined) {
      return {
        check(v, _old, ctx) {
          if (!Array.isArray(v) || v.length < 2) return;
          const seen = new Set<string>();
          let base: string | null = null;
          for (let i = 0; i < v.length; i++) {
            const kv = key === undefined ? v[i] : getField(v[i], key);
            if (kv === undefined) continue;
            const id = canonicalJSON(kv);
            if (!seen.has(id)) {
              seen.add(id);
              continue;
            }
            base ??= ctx.path();
            const where = at === 'item' ? `${base}[${i}]` : parentPath(base);
            ctx.add(asInvalid ? fieldErr.invalid(where, kv, message) : fieldErr.duplicate(where, kv));
          }
        },
      };
    }
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
    const reason = p.duplicateAt === undefined || p.duplicateReason === 'invalid' ? undefined : 'FieldValueDuplicate';
    return { rule: reason === undefined ? { rule, message: p.message as string } : { rule, message: p.message as string, reason } };
  },
  describe(p) {
    return typeof p.key === 'string' ? `Items must have unique \`${p.key}\` values.` : 'Items must be unique.';
  },
};

/** The path of the object holding a field: `spec.drivers[0].topologyKeys` -> `spec.drivers[0]`. */
function parentPath(path: string): string {
  const dot = path.lastIndexOf('.');
  return dot < 0 ? '' : path.slice(0, dot);
}
