// Pieces both schema compilers share word for word: the closure compiler (compile.ts, the
// reference implementation) and the code-generating one (codegen.ts, used by compileSchema).
import type { FieldErrorReason, Schema } from './types.ts';
import { goFloat, NIL_COLLECTION } from './errors.ts';
import { hasOwn, isObject } from './rules/util.ts';
import { SchemaCompileError } from './compile-error.ts';

/** A bound as kube-openapi prints it: int64 for integer data, Go %v float otherwise. */
export function fmtBound(bound: number, intData: boolean): string {
  return intData ? String(Math.trunc(bound)) : goFloat(bound);
}

export const SKIP_BESIDE_REF = new Set(['$ref', 'description', 'title', 'example', 'deprecated', 'x-cluster-source', 'x-cluster-deprecated', 'x-cluster-behavior-default', 'x-cluster-write-only', 'x-cluster-feature-gate', 'x-cluster-vendor-label', 'x-cluster-patch-strategy', 'x-cluster-patch-merge-key']);

export function ptrEscape(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

export const EMPTY_ARRAY: never[] = [];

/** Whether a property's own rules (beside a $ref too) include a nonEmpty that also runs when it is absent. */
export function reportsAbsence(ps: Schema): boolean {
  const rules = isObject(ps) ? ps['x-cluster-rules'] : undefined;
  return Array.isArray(rules) && rules.some((r) => isObject(r) && r.rule === 'nonEmpty' && r.whenAbsent !== false);
}

export function knownReason(r: string): FieldErrorReason {
  switch (r) {
    case 'FieldValueRequired': case 'FieldValueInvalid': case 'FieldValueTypeInvalid': case 'FieldValueNotSupported':
    case 'FieldValueForbidden': case 'FieldValueTooLong': case 'FieldValueTooMany': case 'FieldValueDuplicate':
    case 'FieldValueNotFound': case 'InternalError':
      return r;
    default:
      return 'FieldValueInvalid';
  }
}

/** The value a CEL rule's fieldPath names inside the rule's own value (undefined when absent). */
export function valueAt(v: unknown, fp: string[] | null): unknown {
  let cur = v;
  for (const seg of fp ?? []) cur = isObject(cur) && hasOwn(cur, seg) ? cur[seg] : undefined;
  return cur;
}

/**
 * The value at a CEL rule's fieldPath as upstream's Go validation shows it: a map (a schema with
 * only additionalProperties) has its keys sorted, as json.Marshal prints a Go map, and an absent map
 * or list is a typed nil, printed as a bare `null`.
 */
export function goValueAt(v: unknown, fp: string[] | null, scope: Schema, resolve: (s: Schema) => Schema): unknown {
  const value = valueAt(v, fp);
  let s: Schema | undefined = scope;
  for (const seg of fp ?? []) {
    if (!s) break;
    const props: Record<string, Schema> | undefined = s.properties;
    if (props && hasOwn(props, seg)) s = resolve(props[seg]);
    else if (isObject(s.additionalProperties)) s = resolve(s.additionalProperties as Schema);
    else s = undefined;
  }
  if (!s) return value;
  const isMap = s.type === 'object' && !s.properties && isObject(s.additionalProperties);
  if (value === undefined && (isMap || s.type === 'array')) return NIL_COLLECTION;
  if (isMap && isObject(value)) return Object.fromEntries(Object.keys(value).sort().map((k) => [k, value[k]]));
  return value;
}

/** `.a.b`, `['a.b']`, `.a['x-y']` -> segments (`a`, `b`); numeric indexes are not allowed. */
export function parseFieldPath(fp: string, ptr: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < fp.length) {
    if (fp[i] === '.') {
      const m = /^\.([^.[\]]+)/.exec(fp.slice(i));
      if (!m) throw new SchemaCompileError(ptr + '/fieldPath', `invalid fieldPath ${JSON.stringify(fp)}`);
      out.push(m[1]);
      i += m[0].length;
    } else if (fp[i] === '[') {
      const m = /^\[\s*'((?:[^'\\]|\\.)*)'\s*\]/.exec(fp.slice(i));
      if (!m) throw new SchemaCompileError(ptr + '/fieldPath', `invalid fieldPath ${JSON.stringify(fp)} (numeric list indexes are not supported)`);
      out.push(m[1].replace(/\\(.)/g, '$1'));
      i += m[0].length;
    } else if (i === 0) {
      const m = /^([^.[\]]+)/.exec(fp);
      out.push(m![1]);
      i += m![0].length;
    } else {
      throw new SchemaCompileError(ptr + '/fieldPath', `invalid fieldPath ${JSON.stringify(fp)}`);
    }
  }
  return out;
}

export function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

export function joinKey(base: string, k: string, bracket: boolean): string {
  if (bracket) return `${base}[${k}]`;
  return base === '' ? k : `${base}.${k}`;
}

/** The part of a compiled node that defaulting and pruning read (both compilers' nodes have it). */
export interface StructuralNode<N extends StructuralNode<N>> {
  local: Schema;
  schema: Schema;
  props: Map<string, N> | null;
  additional: N | null;
  additionalAny: boolean;
  items: N | null;
  preserve: boolean;
  embedded: boolean;
  target: N | null;
  hasDefaults: boolean;
  isDef: boolean;
}

export function structural<N extends StructuralNode<N>>(n: N): N {
  return n.target ?? n;
}
/** Upstream structural defaulting: fill absent (or non-nullable null) properties, then recurse. */
export function applyDefaults<N extends StructuralNode<N>>(n: N, x: unknown): void {
  const s = structural(n);
  if (!s.hasDefaults) return;
  if (Array.isArray(x)) {
    const it = s.items;
    if (!it) return;
    for (let i = 0; i < x.length; i++) {
      if (x[i] === null && it.local.default !== undefined && it.local.nullable !== true) x[i] = clone(it.local.default);
      applyDefaults(it, x[i]);
    }
    return;
  }
  if (!isObject(x)) return;
  if (s.props) {
    for (const [k, c] of s.props) {
      const d = c.local.default;
      if (d === undefined) continue;
      if (!hasOwn(x, k) || (x[k] === null && c.local.nullable !== true)) x[k] = clone(d);
    }
  }
  for (const k of Object.keys(x)) {
    const c = s.props?.get(k) ?? s.additional;
    if (!c) continue;
    if (s.additional && c === s.additional && x[k] === null && c.local.default !== undefined && c.local.nullable !== true) x[k] = clone(c.local.default);
    applyDefaults(c, x[k]);
  }
}
/** Upstream structural pruning; returns the dropped paths in `out`. */
export function prune<N extends StructuralNode<N>>(n: N, x: unknown, path: string, isRoot: boolean, isResource: boolean, out: string[]): void {
  const s = structural(n);
  if (Array.isArray(x)) {
    if (s.items) for (let i = 0; i < x.length; i++) prune(s.items, x[i], `${path}[${i}]`, false, false, out);
    return;
  }
  if (!isObject(x)) return;
  const resourceRoot = (isRoot && isResource) || s.embedded;
  const hasStructure = s.props !== null || s.additional !== null || s.additionalAny || s.schema.type === 'object';
  if (!hasStructure) return; // no object structure declared (untyped): keep as is
  for (const k of Object.keys(x)) {
    if (resourceRoot && (k === 'apiVersion' || k === 'kind')) continue;
    const c = s.props?.get(k);
    if (resourceRoot && k === 'metadata') {
      // keep ObjectMeta; prune it only when the schema describes it fully (a $ref to ObjectMeta)
      if (c && (c.target || c.isDef)) prune(c, x[k], joinKey(path, k, false), false, false, out);
      continue;
    }
    if (c) prune(c, x[k], joinKey(path, k, false), false, false, out);
    else if (s.additional) prune(s.additional, x[k], joinKey(path, k, true), false, false, out);
    else if (s.additionalAny || s.preserve) continue;
    else {
      delete x[k];
      out.push(joinKey(path, k, false));
    }
  }
}
