// A CRD field path resolved against a schema as upstream's ValidFieldPath does (selectable fields):
// the path is read token by token ('.', '[', ']' and single-quoted names), each name looked up as a
// property when the schema has properties, else as a key of additionalProperties; the first
// problem ends the walk with upstream's wording.
import { isObject } from '../json/is-object.ts';

type Node = Record<string, unknown>;

export type FieldPathResult = { segs: string[]; schema: Node } | { error: string };

/** Splits like upstream's scanner: delimiters alone, a token starting with ' runs to its closing quote. */
function tokens(path: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < path.length) {
    const c = path[i];
    if (c === '.' || c === '[' || c === ']') {
      out.push(c);
      i++;
      continue;
    }
    let j = i + 1;
    if (c === "'") {
      while (j < path.length && !(path[j] === "'" && path[j - 1] !== '\\')) j++;
      j = Math.min(j + 1, path.length);
    } else {
      while (j < path.length && !'.[]'.includes(path[j])) j++;
    }
    out.push(path.slice(i, j));
    i = j;
  }
  return out;
}

export function resolveFieldPath(path: string, schema: Node, allowArrayNotation: boolean): FieldPathResult {
  const segs: string[] = [];
  let cur: Node = schema;
  const step = (name: string): string | null => {
    if (isObject(cur.properties)) {
      const next = cur.properties[name];
      if (!isObject(next)) return 'does not refer to a valid field';
      cur = next;
    } else if (isObject(cur.additionalProperties) || cur.additionalProperties === true) {
      cur = isObject(cur.additionalProperties) ? cur.additionalProperties : {};
    } else {
      return 'does not refer to a valid field';
    }
    segs.push(name);
    return null;
  };
  const toks = tokens(path);
  for (let i = 0; i < toks.length; i++) {
    const tok = toks[i];
    if (tok === '[') {
      if (!allowArrayNotation) return { error: 'array notation is not allowed' };
      const quoted = toks[++i];
      if (quoted === undefined) return { error: 'unexpected end of JSON path' };
      if (quoted.length < 2 || quoted[0] !== "'" || quoted[quoted.length - 1] !== "'") return { error: `expected single quoted string but got ${quoted}` };
      const err = step(quoted.slice(1, -1).replace(/\\(.)/g, '$1'));
      if (err) return { error: err };
      const close = toks[++i];
      if (close === undefined) return { error: 'unexpected end of JSON path' };
      if (close !== ']') return { error: `expected ] but got ${close}` };
    } else if (tok === '.') {
      const name = toks[++i];
      if (name === undefined) return { error: 'unexpected end of JSON path' };
      const err = step(name);
      if (err) return { error: err };
    } else {
      return { error: `expected [ or . but got: ${tok}` };
    }
  }
  return { segs, schema: cur };
}
