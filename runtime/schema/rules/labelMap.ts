// `labelMap`: a map of labels checked as upstream's ValidateLabels (metav1 validation) checks one
// outside metadata (a label selector's matchLabels): each key a qualified name and each value a
// label value, every error reported at the map itself with the offending key or value
// (`spec.selector.matchLabels: Invalid value: "a b": name part must ...`).
import type { RuleKind } from './types.ts';
import { validateLabels } from '../metadata.ts';
import { syntaxCel } from '../syntax.ts';
import { syntaxMessage } from './syntaxSample.ts';
import { isObject, stringParam } from './util.ts';

export const labelMap: RuleKind = {
  kind: 'labelMap',
  checkParams(_p, node, env) {
    const s = env.resolve(node);
    if (typeof s.additionalProperties !== 'object') return 'labelMap applies to a map of strings (a schema with additionalProperties)';
    return null;
  },
  compile() {
    return {
      check(v, _old, ctx) {
        if (!isObject(v)) return; // a wrong type is the schema's error
        const errs: Parameters<typeof validateLabels>[2] = [];
        validateLabels(v, ctx.path(), errs);
        for (const e of errs) ctx.add(e);
      },
    };
  },
  toCel(p) {
    const key = syntaxCel('qualifiedName', 'k');
    const value = syntaxCel('labelValue', 'self[k]');
    return { rule: { rule: `self.all(k, ${key} && ${value})`, message: stringParam(p, 'message') ?? `${syntaxMessage('qualifiedName')}; ${syntaxMessage('labelValue')}` } };
  },
  describe() {
    return 'Each key must be a label key and each value a label value.';
  },
};
