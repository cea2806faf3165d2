// `standardFinalizers`: on an ObjectMeta, a finalizer without a '/' must be one of the standard
// names. Core's ValidateObjectMeta adds this (validateKubeFinalizerName) to apimachinery's checks,
// so core and storage kinds have it and CRDs, webhook configurations and custom resources do not.
import type { RuleKind } from './types.ts';
import { fieldErr } from '../errors.ts';
import { celString, isObject, stringList, stringParam } from './util.ts';

const MESSAGE = 'name is neither a standard finalizer name nor is it fully qualified';

export const standardFinalizers: RuleKind = {
  kind: 'standardFinalizers',
  checkParams(p, node, env) {
    const names = stringList(p, 'names');
    if (!names || names.length === 0) return '`names` must list the standard finalizer names';
    const s = env.resolve(node);
    if (s.type !== undefined && s.type !== 'object') return 'standardFinalizers applies to an ObjectMeta';
    return null;
  },
  compile(p) {
    const names = new Set(stringList(p, 'names'));
    const message = stringParam(p, 'message') ?? MESSAGE;
    return {
      check(v, _old, ctx) {
        if (!isObject(v) || !Array.isArray(v.finalizers)) return;
        let base: string | null = null;
        v.finalizers.forEach((f, i) => {
          if (typeof f !== 'string' || f.includes('/') || names.has(f)) return;
          base ??= ctx.path();
          ctx.add(fieldErr.invalid(`${base === '' ? '' : base + '.'}finalizers[${i}]`, f, message));
        });
      },
    };
  },
  toCel(p) {
    const names = (stringList(p, 'names') ?? []).map(celString).join(', ');
    return { rule: { rule: `!has(self.finalizers) || self.finalizers.all(f, f.contains('/') || f in [${names}])`, message: stringParam(p, 'message') ?? MESSAGE } };
  },
  describe(p) {
    return `A finalizer without a "/" must be one of ${(stringList(p, 'names') ?? []).join(', ')}.`;
  },
};
