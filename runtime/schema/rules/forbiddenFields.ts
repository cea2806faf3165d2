// `forbiddenFields`: fields of an object that must not be set, each reported where it is, in the order
// listed (upstream's validateFieldAllowList walks ObjectMeta's Go fields so for a PVC template's
// metadata). Set is Go's non-zero: absent, null, "", 0 and false are unset; a list or map is set
// once present, even empty (JSON decodes it to a non-nil value).
import type { RuleKind } from './types.ts';
import { childPath, fieldErr } from '../errors.ts';
import { celHas, checkFields, getField, isObject, stringList, stringParam } from './util.ts';

function nonZero(v: unknown): boolean {
  return !(v === undefined || v === null || v === '' || v === 0 || v === false);
}

export const forbiddenFields: RuleKind = {
  kind: 'forbiddenFields',
  checkParams(p, node, env) {
    const fields = stringList(p, 'fields');
    if (!fields || fields.length === 0) return '`fields` must list the fields that cannot be set';
    if (typeof p.message !== 'string' || p.message === '') return '`message` must say why (`cannot be set`)';
    return checkFields(node, fields, env);
  },
  compile(p) {
    const fields = stringList(p, 'fields') ?? [];
    const message = String(p.message);
    return {
      check(v, _old, ctx) {
        if (!isObject(v)) return;
        for (const f of fields) if (nonZero(getField(v, f))) ctx.add(fieldErr.forbidden(childPath(ctx.path(), f), message));
      },
    };
  },
  toCel(p) {
    const fields = stringList(p, 'fields') ?? [];
    return { rule: { rule: fields.map((f) => `!${celHas('self', f)}`).join(' && '), message: `${fields.join(', ')}: ${String(p.message)}`, reason: 'FieldValueForbidden' } };
  },
  describe(p) {
    return `${(stringList(p, 'fields') ?? []).map((f) => `\`${f}\``).join(', ')}: ${String(p.message)}.`;
  },
};
