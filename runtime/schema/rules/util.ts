// Helpers shared by the rule kinds.
import type { RuleSpec, Schema } from '../types.ts';
import type { RuleEnv } from './types.ts';
import { isObject } from '../../json/is-object.ts';

export { isObject };

export function hasOwn(o: object, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

/** A field's value, reading own properties only. */
export function getField(o: unknown, k: string): unknown {
  return isObject(o) && hasOwn(o, k) ? o[k] : undefined;
}

/** A value at a dotted relative path (`spec.dataSource`). */
export function getPath(o: unknown, path: string): unknown {
  if (path.indexOf('.') < 0) return getField(o, path); // most rule parameters name a direct field
  let cur = o;
  for (const p of path.split('.')) {
    cur = getField(cur, p);
    if (cur === undefined) return undefined;
  }
  return cur;
}

/**
 * Whether a field counts as set, as upstream's Go zero-value checks do: absent and null are unset,
 * and so are empty strings and empty lists; objects, numbers and booleans are set when present.
 */
export function isSet(v: unknown): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === 'string' || Array.isArray(v)) return v.length > 0;
  return true;
}

/**
 * Deep equality of JSON values for the rule kinds: absent (undefined, what getPath gives for a
 * missing field) and null are equal, here and in list items. Differs on purpose from runtime/json's
 * jsonEqual, which keeps null and absent apart. Never throws: below DEEP_EQUAL_RECURSION levels it
 * recurses (fast on the small values rules compare), beyond it the comparison goes on iteratively
 * and, as Go's reflect.DeepEqual, takes a pair of objects met again as equal (cyclic input ends).
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  return equalWithin(a, b, 0);
}

const DEEP_EQUAL_RECURSION = 64;

/** The comparison of two values that are not both objects, or null when both are objects (or arrays) to compare member-wise. */
function shallowEqual(a: unknown, b: unknown): boolean | null {
  if (a === b) return true;
  if (a === undefined || a === null) return b === undefined || b === null;
  if (b === undefined || b === null) return false;
  if (typeof a !== typeof b) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length ? null : false;
  if (isObject(a)) return isObject(b) && Object.keys(a).length === Object.keys(b).length ? null : false;
  return false;
}

function equalWithin(a: unknown, b: unknown, depth: number): boolean {
  const shallow = shallowEqual(a, b);
  if (shallow !== null) return shallow;
  if (depth >= DEEP_EQUAL_RECURSION) return equalIteratively(a, b);
  if (Array.isArray(a)) {
    const bs = b as unknown[];
    for (let i = 0; i < a.length; i++) if (!equalWithin(a[i], bs[i], depth + 1)) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  for (const k of Object.keys(ao)) if (!hasOwn(bo, k) || !equalWithin(ao[k], bo[k], depth + 1)) return false;
  return true;
}

/** deepEqual over a work list: each pair of objects compared once (a pair met again counts as equal). */
function equalIteratively(a: unknown, b: unknown): boolean {
  // the partners each object was paired with: one object, or a set once there are several
  const seen = new Map<object, object | Set<object>>();
  const left: unknown[] = [a];
  const right: unknown[] = [b];
  while (left.length > 0) {
    const x = left.pop();
    const y = right.pop();
    const shallow = shallowEqual(x, y);
    if (shallow === false) return false;
    if (shallow === true) continue;
    const xo = x as object;
    const yo = y as object;
    const partners = seen.get(xo);
    if (partners === undefined) seen.set(xo, yo);
    else if (partners === yo || (partners instanceof Set && partners.has(yo))) continue;
    else if (partners instanceof Set) partners.add(yo);
    else seen.set(xo, new Set([partners, yo]));
    if (Array.isArray(x)) {
      const ys = y as unknown[];
      for (let i = 0; i < x.length; i++) {
        left.push(x[i]);
        right.push(ys[i]);
      }
    } else {
      const xr = x as Record<string, unknown>;
      const yr = y as Record<string, unknown>;
      for (const k of Object.keys(xr)) {
        if (!hasOwn(yr, k)) return false;
        left.push(xr[k]);
        right.push(yr[k]);
      }
    }
  }
  return true;
}

/** JSON with sorted object keys (Go's encoding of maps), for identity of list items. */
export function canonicalJSON(v: unknown): string {
  if (v === undefined) return 'null';
  if (Array.isArray(v)) return '[' + v.map(canonicalJSON).join(',') + ']';
  if (isObject(v)) {
    return '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + canonicalJSON(v[k])).join(',') + '}';
  }
  return JSON.stringify(v);
}

/** A list of strings parameter, or null. */
export function stringList(p: RuleSpec, key: string): string[] | null {
  const v = p[key];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return null;
  return v as string[];
}

export function stringParam(p: RuleSpec, key: string): string | undefined {
  const v = p[key];
  return typeof v === 'string' ? v : undefined;
}

/** The property schema at a dotted path of a node, resolving $ref, or undefined. */
export function propertyAt(node: Schema, path: string, env: RuleEnv): Schema | undefined {
  let cur: Schema | undefined = env.resolve(node);
  for (const p of path.split('.')) {
    if (!cur) return undefined;
    const props: Record<string, Schema> | undefined = cur.properties;
    if (props && hasOwn(props, p)) {
      cur = env.resolve(props[p]);
    } else if (p === 'metadata' || (cur['x-cluster-embedded-resource'] && (p === 'apiVersion' || p === 'kind'))) {
      cur = { type: 'object', 'x-cluster-preserve-unknown-fields': true };
    } else if (typeof cur.additionalProperties === 'object') {
      cur = env.resolve(cur.additionalProperties);
    } else if (cur['x-cluster-preserve-unknown-fields']) {
      cur = {};
    } else {
      return undefined;
    }
  }
  return cur;
}

/** Checks that every named field exists on the node; returns the first problem. */
export function checkFields(node: Schema, names: string[], env: RuleEnv): string | null {
  for (const n of names) {
    if (!propertyAt(node, n, env)) return `field ${JSON.stringify(n)} is not a property of this schema node`;
  }
  return null;
}

const CEL_RESERVED = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if',
  'import', 'let', 'loop', 'package', 'namespace', 'return',
]);

/** A property name as CEL sees it (escaping of document 2, ValidationRule). */
export function celName(name: string): string {
  if (CEL_RESERVED.has(name)) return `__${name}__`;
  return name
    .replace(/__/g, '__underscores__')
    .replace(/\./g, '__dot__')
    .replace(/-/g, '__dash__')
    .replace(/\//g, '__slash__');
}

/** `self.a.b` for a dotted path. */
export function celSelect(base: string, path: string): string {
  return base + path.split('.').map((p) => '.' + celName(p)).join('');
}

/** `has(self.a) && has(self.a.b)` for a dotted path. */
export function celHas(base: string, path: string): string {
  const parts = path.split('.');
  const out: string[] = [];
  for (let i = 1; i <= parts.length; i++) out.push(`has(${celSelect(base, parts.slice(0, i).join('.'))})`);
  return out.join(' && ');
}

export function celString(s: string): string {
  return "'" + s.replace(/\\/g, '\\\\').replace(/'/g, "\\'") + "'";
}

/** A JSON value as a CEL literal. */
export function celLiteral(v: unknown): string {
  if (typeof v === 'string') return celString(v);
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return '[' + v.map(celLiteral).join(', ') + ']';
  if (isObject(v)) return '{' + Object.keys(v).map((k) => `${celString(k)}: ${celLiteral(v[k])}`).join(', ') + '}';
  return String(v);
}

/** Backquoted field list: `a`, `b`. */
export function quoteFields(fields: string[]): string {
  return fields.map((f) => '`' + f + '`').join(', ');
}

/** A relative field path for CEL fieldPath (`.a.b`, `['a.b']` when needed). */
export function celFieldPath(path: string): string {
  return path
    .split('.')
    .map((p) => (/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(p) ? '.' + p : `['${p}']`))
    .join('');
}
