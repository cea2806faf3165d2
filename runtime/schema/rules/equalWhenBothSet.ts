import type { RuleKind } from './types.ts';
import { fieldErr, childPath } from '../errors.ts';
import { celFieldPath, celHas, celSelect, checkFields, deepEqual, getPath, isObject, isSet, stringList, stringParam } from './util.ts';

function message(p: Record<string, unknown>, a: string): string {
  return typeof p.message === 'string' ? p.message : `must match \`${a}\``;
}

/** The two values as compared: the whole values, or only the `compare` subfields of each. */
function same(va: unknown, vb: unknown, compare: string[] | null): boolean {
  if (!compare) return deepEqual(va, vb);
  return compare.every((k) => deepEqual(getPath(va, k), getPath(vb, k)));
}

export const equalWhenBothSet: RuleKind = {
  kind: 'equalWhenBothSet',
  checkParams(p, node, env) {
    const fields = stringList(p, 'fields');
    if (!fields || fields.length !== 2) return '`fields` must name exactly two fields';
    if (p.compare !== undefined) {
      const compare = stringList(p, 'compare');
      if (!compare || compare.length === 0) return '`compare` must list the subfields to compare';
      const bad = checkFields(node, fields.flatMap((f) => compare.map((c) => `${f}.${c}`)), env);
      if (bad) return bad;
    }
    if (p.unlessSet !== undefined) {
      if (typeof p.unlessSet !== 'string') return '`unlessSet` must be a field path';
      const bad = checkFields(node, [p.unlessSet], env);
      if (bad) return bad;
    }
    return checkFields(node, fields, env);
  },
  compile(p) {
    const [a, b] = stringList(p, 'fields') ?? ['', ''];
    const compare = stringList(p, 'compare');
    const unlessSet = stringParam(p, 'unlessSet');
    const msg = message(p, a);
    return {
      check(v, _old, ctx) {
        if (!isObject(v)) return;
        if (unlessSet !== undefined && isSet(getPath(v, unlessSet))) return;
        const va = getPath(v, a);
        const vb = getPath(v, b);
        if (isSet(va) && isSet(vb) && !same(va, vb, compare)) ctx.add(fieldErr.invalid(childPath(ctx.path(), b), vb, msg));
      },
    };
  },
  toCel(p) {
    const [a, b] = stringList(p, 'fields') ?? ['', ''];
    const compare = stringList(p, 'compare');
    const unlessSet = stringParam(p, 'unlessSet');
    const eq = compare
      ? compare
          .map((c) => {
            const pa = `${a}.${c}`;
            const pb = `${b}.${c}`;
            return `(${celHas('self', pa)}) == (${celHas('self', pb)}) && (!(${celHas('self', pa)}) || ${celSelect('self', pa)} == ${celSelect('self', pb)})`;
          })
          .map((x) => `(${x})`)
          .join(' && ')
      : `${celSelect('self', a)} == ${celSelect('self', b)}`;
    const skip = unlessSet !== undefined ? `(${celHas('self', unlessSet)} && ${celSelect('self', unlessSet)} != '') || ` : '';
    return {
      rule: {
        rule: `${skip}!(${celHas('self', a)}) || !(${celHas('self', b)}) || ${eq}`,
        message: message(p, a),
        fieldPath: celFieldPath(b),
      },
    };
  },
  describe(p) {
    const [a, b] = stringList(p, 'fields') ?? ['', ''];
    const compare = stringList(p, 'compare');
    const what = compare ? ` in ${compare.map((c) => '`' + c + '`').join(', ')}` : '';
    const unless = typeof p.unlessSet === 'string' ? ` unless \`${p.unlessSet}\` is set` : '';
    return `When both are set, \`${b}\` must equal \`${a}\`${what}${unless}.`;
  },
};
