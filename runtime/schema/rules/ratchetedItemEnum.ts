// `ratchetedItemEnum`: on a list of objects, each item's `field` must be one of `values`, unless the
// old list (an update) has an item whose field is absent or outside `values`: then `storedValues`
// are accepted too. Upstream's admissionregistration ratcheting of sideEffects
// (validatingHasNoSideEffects over the old webhooks decides requireNoSideEffects for every new one).
// Absent or null: `[i].<field>: Required value: must specify one of <allowed, ", ">`; another value:
// `Unsupported value: "<v>": supported values: <allowed>`. The property carries `checkedByList`; its
// `enum` (the documents' values) is not checked by the tree, nor put in CRD bodies.
import type { RuleKind } from './types.ts';
import type { RuleSpec } from '../types.ts';
import { fieldErr } from '../errors.ts';
import { getField, stringList } from './util.ts';

function lists(p: RuleSpec): { field: string; values: string[]; storedValues: string[] } {
  return {
    field: typeof p.field === 'string' ? p.field : '',
    values: stringList(p, 'values') ?? [],
    storedValues: stringList(p, 'storedValues') ?? [],
  };
}

export const ratchetedItemEnum: RuleKind = {
  kind: 'ratchetedItemEnum',
  checkParams(p, node, env) {
    const { field, values, storedValues } = lists(p);
    if (field === '') return '`field` must name a property of the items';
    if (values.length === 0) return '`values` must list the accepted values';
    if (storedValues.length === 0 || !values.every((v) => storedValues.includes(v))) return '`storedValues` must list `values` and the values kept on update';
    const s = env.resolve(node);
    if (s.type !== undefined && s.type !== 'array') return 'ratchetedItemEnum applies to lists';
    const items = s.items ? env.resolve(s.items) : undefined;
    // the property should carry checkedByList (else its own enum and required checks report too)
    return items?.properties?.[field] ? null : `field ${JSON.stringify(field)} is not a property of the list items`;
  },
  compile(p) {
    const { field, values, storedValues } = lists(p);
    const strict = new Set(values);
    const outside = (item: unknown): boolean => {
      const v = getField(item, field);
      return typeof v !== 'string' || !strict.has(v);
    };
    return {
      check(v, old, ctx) {
        if (!Array.isArray(v)) return;
        const allowed = Array.isArray(old) && old.some(outside) ? storedValues : values;
        const accepted = new Set(allowed);
        for (let i = 0; i < v.length; i++) {
          const fv = getField(v[i], field);
          const path = `${ctx.path()}[${i}].${field}`;
          if (fv === undefined || fv === null) ctx.add(fieldErr.required(path, `must specify one of ${allowed.join(', ')}`));
          else if (typeof fv !== 'string' || !accepted.has(fv)) ctx.add(fieldErr.notSupported(path, fv, allowed));
        }
      },
    };
  },
  toCel() {
    return { rule: null, reason: 'the accepted values depend on the whole old list: a rule over two unbounded lists, beyond a CRD rule\'s cost budget' };
  },
  describe(p) {
    const { field, values, storedValues } = lists(p);
    const kept = storedValues.filter((v) => !values.includes(v));
    return `Each item's \`${field}\` must be one of ${values.join(', ')}; ${kept.join(' or ')} ${kept.length > 1 ? 'are' : 'is'} kept on update while a stored item has a value outside those.`;
  },
};
