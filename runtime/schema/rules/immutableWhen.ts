import type { RuleKind } from './types.ts';
import { fieldErr, childPath } from '../errors.ts';
import { celHas, celLiteral, celSelect, checkFields, deepEqual, getPath, isObject, stringList, stringParam } from './util.ts';

function params(p: Record<string, unknown>): { field: string; equals: unknown; fields: string[] } {
  const field = typeof p.field === 'string' ? p.field : '';
  const fields = Array.isArray(p.fields) ? (p.fields as string[]) : [];
  return { field, equals: p.equals === undefined ? true : p.equals, fields: fields.includes(field) ? fields : [field, ...fields] };
}

export const immutableWhen: RuleKind = {
  kind: 'immutableWhen',
  checkParams(p, node, env) {
    if (typeof p.field !== 'string') return '`field` (the flag) is required';
    const fields = stringList(p, 'fields');
    if (!fields || fields.length === 0) return '`fields` must be a non-empty list of field names';
    return checkFields(node, [p.field, ...fields], env);
  },
  compile(p) {
    const { field, equals, fields } = params(p);
    const message = stringParam(p, 'message') ?? `field is immutable when \`${field}\` is set`;
    return {
      updateOnly: true,
      check(v, old, ctx) {
        if (!isObject(old) || !deepEqual(getPath(old, field), equals)) return;
        const base = ctx.path();
        for (const f of fields) {
          if (!deepEqual(getPath(v, f), getPath(old, f))) ctx.add(fieldErr.forbidden(childPath(base, f), message));
        }
      },
    };
  },
  toCel(p) {
    const { field, equals, fields } = params(p);
    const message = stringParam(p, 'message') ?? `field is immutable when \`${field}\` is set`;
    const same = fields.map((f) =>
      `(${celHas('self', f)}) == (${celHas('oldSelf', f)}) && (!(${celHas('self', f)}) || ${celSelect('self', f)} == ${celSelect('oldSelf', f)})`);
    const rule = `!(${celHas('oldSelf', field)} && ${celSelect('oldSelf', field)} == ${celLiteral(equals)}) || (${same.join(' && ')})`;
    return { rule: { rule, message, reason: 'FieldValueForbidden' } };
  },
  describe(p) {
    const { field, equals, fields } = params(p);
    return `Once \`${field}\` is ${JSON.stringify(equals)}, ${fields.map((f) => '`' + f + '`').join(', ')} can no longer be changed.`;
  },
};
