import type { RuleKind } from './types.ts';
import { fieldErr, childPath } from '../errors.ts';
import {
  celFieldPath, celHas, celLiteral, celSelect, checkFields, deepEqual, getPath, isObject, isSet, quoteFields, stringList, stringParam,
} from './util.ts';

function parts(p: Record<string, unknown>): { field: string; requires: string[]; when: unknown; message: string } {
  const field = typeof p.field === 'string' ? p.field : '';
  const requires = Array.isArray(p.requires) ? (p.requires as string[]) : [];
  const when = p.when === undefined ? 'set' : p.when;
  const need = `${quoteFields(requires)} ${requires.length > 1 ? 'are' : 'is'} set`;
  const message = typeof p.message === 'string' ? p.message
    : when === 'set' ? `may only be set when ${need}` : `may only be ${JSON.stringify(when)} when ${need}`;
  return { field, requires, when, message };
}

export const requires: RuleKind = {
  kind: 'requires',
  checkParams(p, node, env) {
    if (typeof p.field !== 'string') return '`field` is required';
    const req = stringList(p, 'requires');
    if (!req || req.length === 0) return '`requires` must be a non-empty list of field names';
    return checkFields(node, [p.field, ...req], env);
  },
  compile(p) {
    const { field, requires: req, when, message } = parts(p);
    return {
      check(v, _old, ctx) {
        if (!isObject(v)) return;
        const fv = getPath(v, field);
        const active = when === 'set' ? isSet(fv) : deepEqual(fv, when);
        if (!active) return;
        if (req.every((r) => isSet(getPath(v, r)))) return;
        ctx.add(fieldErr.forbidden(childPath(ctx.path(), field), message));
      },
    };
  },
  toCel(p) {
    const { field, requires: req, when, message } = parts(p);
    const cond = when === 'set' ? celHas('self', field) : `${celHas('self', field)} && ${celSelect('self', field)} == ${celLiteral(when)}`;
    const need = req.map((r) => celHas('self', r)).join(' && ');
    return { rule: { rule: `!(${cond}) || (${need})`, message, reason: 'FieldValueForbidden', fieldPath: celFieldPath(field) } };
  },
  describe(p) {
    const { field, requires: req, when } = parts(p);
    void stringParam;
    return when === 'set'
      ? `\`${field}\` may only be set together with ${quoteFields(req)}.`
      : `When \`${field}\` is ${JSON.stringify(when)}, ${quoteFields(req)} must be set.`;
  },
};
