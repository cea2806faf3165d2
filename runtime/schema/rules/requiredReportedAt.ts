// `requiredReportedAt`: a field of the object is required, and upstream reports its absence at another
// path (StorageVersionMigration's validateCondition checks lastUpdateTime and names the error
// `lastTransitionTime`, a field the schema does not have). Absent and null are missing (Go's zero
// time); the path is relative to the object, so a list item's error reads `conditions[0].<reportAt>`.
import type { RuleKind } from './types.ts';
import { childPath, fieldErr } from '../errors.ts';
import { celFieldPath, celHas, checkFields, getField, isObject, stringParam } from './util.ts';

export const requiredReportedAt: RuleKind = {
  kind: 'requiredReportedAt',
  checkParams(p, node, env) {
    if (typeof p.field !== 'string' || p.field === '') return '`field` must name a property of the object';
    if (typeof p.reportAt !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(p.reportAt)) {
      return '`reportAt` must be a dotted field path (`lastTransitionTime`)';
    }
    return checkFields(node, [p.field], env);
  },
  compile(p) {
    const field = String(p.field);
    const reportAt = String(p.reportAt);
    const detail = stringParam(p, 'message') ?? '';
    return {
      check(v, _old, ctx) {
        if (!isObject(v)) return;
        const fv = getField(v, field);
        if (fv === undefined || fv === null) ctx.add(fieldErr.required(childPath(ctx.path(), reportAt), detail));
      },
    };
  },
  toCel(p) {
    // a CRD rule can only name a field of its schema: the lowering reports at the field itself
    return {
      rule: {
        rule: celHas('self', String(p.field)),
        message: stringParam(p, 'message') ?? `${String(p.field)} is required`,
        reason: 'FieldValueRequired',
        fieldPath: celFieldPath(String(p.field)),
      },
    };
  },
  describe(p) {
    return `\`${String(p.field)}\` is required.`;
  },
};
