import type { RuleKind } from './types.ts';
import { fieldErr } from '../errors.ts';
import { celString, deepEqual, isSet, stringParam } from './util.ts';

/** The last field name of a path (`spec.provisioner` -> `provisioner`). */
function lastField(path: string): string {
  const m = /([^.[\]]+)\]?$/.exec(path);
  return m ? m[1] : path;
}

export const immutable: RuleKind = {
  kind: 'immutable',
  checkParams(p) {
    const style = p.style;
    if (style !== undefined && style !== 'invalid' && style !== 'forbidden') return '`style` must be `invalid` or `forbidden`';
    if (p.onceSet !== undefined && typeof p.onceSet !== 'boolean') return '`onceSet` must be a boolean';
    if (p.unlessFeatureGate !== undefined && typeof p.unlessFeatureGate !== 'string') return '`unlessFeatureGate` must be a gate name';
    return null;
  },
  compile(p, _node, env) {
    const gate = stringParam(p, 'unlessFeatureGate');
    if (gate && env.featureGates[gate]) return null;
    const forbidden = p.style === 'forbidden';
    const onceSet = p.onceSet === true;
    const message = stringParam(p, 'message');
    return {
      whenAbsent: true,
      updateOnly: true,
      check(v, old, ctx) {
        if (onceSet && !isSet(old)) return;
        if (deepEqual(v, old)) return;
        const path = ctx.path();
        if (forbidden) ctx.add(fieldErr.forbidden(path, message ?? `updates to ${lastField(path)} are forbidden.`));
        else ctx.add(fieldErr.invalid(path, v ?? null, message ?? 'field is immutable'));
      },
    };
  },
  toCel(p, node, fieldName) {
    const gate = stringParam(p, 'unlessFeatureGate');
    if (gate) return { rule: null, reason: `depends on feature gate ${gate}, which CEL cannot read` };
    const forbidden = p.style === 'forbidden';
    const message = stringParam(p, 'message') ??
      (forbidden ? `updates to ${fieldName ?? 'this field'} are forbidden.` : 'field is immutable');
    const rule = p.onceSet === true && node?.type === 'string' ? `oldSelf == ${celString('')} || self == oldSelf` : 'self == oldSelf';
    return { rule: { rule, message, ...(forbidden ? { reason: 'FieldValueForbidden' } : {}) } };
  },
  describe(p) {
    const gate = stringParam(p, 'unlessFeatureGate');
    const base = p.onceSet === true ? 'Immutable once set: it may be set once, then never changed.' : 'Immutable: it cannot be changed after creation.';
    return gate ? `${base.slice(0, -1)} (unless the ${gate} feature gate is enabled).` : base;
  },
};
