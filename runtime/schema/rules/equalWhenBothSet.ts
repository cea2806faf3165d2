import type { RuleKind } from './types.ts';
import { fieldErr, childPath } from '../errors.ts';
import { celFieldPath, celHas, celSelect, checkFields, deepEqual, getPath, isObject, isSet, stringList } from './util.ts';

function message(p: Record<string, unknown>, a: string): string {
  return typeof p.message === 'string' ? p.message : `must match \`${a}\``;
}

export const equalWhenBothSet: RuleKind = {
  kind: 'equalWhenBothSet',
  checkParams(p, node, env) {
    const fields = stringList(p, 'fields');
    if (!fields || fields.length !== 2) return '`fields` must name exactly two fields';
    return checkFields(node, fields, env);
  },
  compile(p) {
    const [a, b] = stringList(p, 'fields') ?? ['', ''];
    const msg = message(p, a);
    return {
      check(v, _old, ctx) {
        if (!isObject(v)) return;
        const va = getPath(v, a);
        const vb = getPath(v, b);
        if (isSet(va) && isSet(vb) && !deepEqual(va, vb)) ctx.add(fieldErr.invalid(childPath(ctx.path(), b), vb, msg));
      },
    };
  },
  toCel(p) {
    const [a, b] = stringList(p, 'fields') ?? ['', ''];
    return {
      rule: {
        rule: `!(${celHas('self', a)}) || !(${celHas('self', b)}) || ${celSelect('self', a)} == ${celSelect('self', b)}`,
        message: message(p, a),
        fieldPath: celFieldPath(b),
      },
    };
  },
  describe(p) {
    const [a, b] = stringList(p, 'fields') ?? ['', ''];
    return `When both are set, \`${b}\` must equal \`${a}\`.`;
  },
};
