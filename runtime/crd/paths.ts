// Simple JSON paths of CRDs (`.spec.replicas`, `.spec['a.b']`, `.status.conditions[0].type`):
// parsing, resolving against a schema, reading from an object.
import { isObject } from '../json/is-object.ts';

type Node = Record<string, unknown>;

export type PathSegment = string | number;

/**
 * Parses `.a.b`, `.a['b.c']`, and with `allowIndex` also `.a[0]`. Returns null when invalid.
 * A path must start with `.`, or with `[` for a quoted name.
 */
export function parseSimplePath(path: string, allowIndex: boolean): PathSegment[] | null {
  const out: PathSegment[] = [];
  let i = 0;
  if (path === '' || (path[0] !== '.' && path[0] !== '[')) return null;
  while (i < path.length) {
    const rest = path.slice(i);
    let m: RegExpExecArray | null;
    if ((m = /^\.([^.[\]]+)/.exec(rest))) {
      out.push(m[1]);
    } else if ((m = /^\[\s*'((?:[^'\\]|\\.)*)'\s*\]/.exec(rest)) || (m = /^\[\s*"((?:[^"\\]|\\.)*)"\s*\]/.exec(rest))) {
      out.push(m[1].replace(/\\(.)/g, '$1'));
    } else if (allowIndex && (m = /^\[(\d+)\]/.exec(rest))) {
      out.push(Number(m[1]));
    } else {
      return null;
    }
    i += m[0].length;
  }
  return out;
}

/** The schema a path points at (properties, additionalProperties, items for indexes); the error is upstream's ValidFieldPath wording. */
export function findSchemaAt(schema: Node, segs: readonly PathSegment[]): { schema: Node } | { error: string } {
  let cur: Node = schema;
  for (const seg of segs) {
    if (typeof seg === 'number') {
      if (!isObject(cur.items)) return { error: 'does not refer to a valid field' };
      cur = cur.items;
      continue;
    }
    const props = isObject(cur.properties) ? cur.properties : undefined;
    if (props && isObject(props[seg])) cur = props[seg] as Node;
    else if (isObject(cur.additionalProperties)) cur = cur.additionalProperties;
    else return { error: 'does not refer to a valid field' };
  }
  return { schema: cur };
}

/** The value at a path, or undefined when absent. */
export function readPath(obj: unknown, segs: readonly PathSegment[]): unknown {
  let cur: unknown = obj;
  for (const seg of segs) {
    if (typeof seg === 'number') {
      if (!Array.isArray(cur) || seg >= cur.length) return undefined;
      cur = cur[seg];
    } else {
      if (!isObject(cur) || !Object.prototype.hasOwnProperty.call(cur, seg)) return undefined;
      cur = cur[seg];
    }
  }
  return cur;
}

/** Sets a value at a path of object keys, creating objects on the way. */
export function writePath(obj: Node, segs: readonly PathSegment[], value: unknown): void {
  let cur: Node = obj;
  for (let i = 0; i < segs.length - 1; i++) {
    const k = String(segs[i]);
    if (!isObject(cur[k])) cur[k] = {};
    cur = cur[k] as Node;
  }
  cur[String(segs[segs.length - 1])] = value;
}
