import type { RuleKind } from './types.ts';
import { fieldErr, childPath } from '../errors.ts';
import { celFieldPath, celHas, celSelect, checkFields, getPath, hasOwn, isObject, stringList, stringParam } from './util.ts';

export const disjointKeys: RuleKind = {
  kind: 'disjointKeys',
  checkParams(p, node, env) {
    const maps = stringList(p, 'maps');
    if (!maps || maps.length !== 2) return '`maps` must name exactly two map fields';
    return checkFields(node, maps, env);
  },
  compile(p) {
    const [a, b] = stringList(p, 'maps') ?? ['', ''];
    const message = stringParam(p, 'message') ?? `duplicate of key present in ${b}`;
    return {
      check(v, _old, ctx) {
        const ma = getPath(v, a);
        const mb = getPath(v, b);
        if (!isObject(ma) || !isObject(mb)) return;
        const base = childPath(ctx.path(), a);
        for (const k of Object.keys(ma)) if (hasOwn(mb, k)) ctx.add(fieldErr.invalid(`${base}[${k}]`, k, message));
      },
    };
  },
  toCel(p) {
    const [a, b] = stringList(p, 'maps') ?? ['', ''];
    const message = stringParam(p, 'message') ?? `duplicate of key present in ${b}`;
    return {
      rule: {
        rule: `!(${celHas('self', a)}) || !(${celHas('self', b)}) || ${celSelect('self', a)}.all(k, !(k in ${celSelect('self', b)}))`,
        message,
        fieldPath: celFieldPath(a),
      },
    };
  },
  describe(p) {
    const [a, b] = stringList(p, 'maps') ?? ['', ''];
    return `A key may not appear in both \`${a}\` and \`${b}\`.`;
  },
};
