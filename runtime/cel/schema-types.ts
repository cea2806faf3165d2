// Schema -> CEL types, and JSON -> CEL values per the schema (document 2, ValidationRule).

import type { Schema } from '../schema/types.ts';
import {
  CelObject,
  Duration,
  markList,
  parseRfc3339,
  type CelEnvironment,
  type CelTypeDecl,
  type ListKind,
  type ObjectTypeDef,
} from './engine.ts';

/** CEL reserved words that are escaped as `__word__` when used as property names. */
const RESERVED = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function',
  'if', 'import', 'let', 'loop', 'package', 'namespace', 'return',
]);
const VALID_NAME = /^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/;
const ESCAPES: Record<string, string> = { __: '__underscores__', '.': '__dot__', '-': '__dash__', '/': '__slash__' };

/** The CEL field name of a property, or undefined when the property is not accessible from CEL. */
export function escapePropertyName(name: string): string | undefined {
  if (RESERVED.has(name)) return `__${name}__`;
  if (!VALID_NAME.test(name)) return undefined;
  return name.replace(/__|[.\-/]/g, (m) => ESCAPES[m]);
}

/** Inverse of escapePropertyName (for fieldPath checks and messages). */
export function unescapePropertyName(name: string): string {
  const m = /^__([a-z]+)__$/.exec(name);
  if (m && RESERVED.has(m[1])) return m[1];
  return name.replace(/__(underscores|dot|dash|slash)__/g, (_all, w: string) =>
    w === 'underscores' ? '__' : w === 'dot' ? '.' : w === 'dash' ? '-' : '/',
  );
}

export type Shape =
  | { k: 'int' | 'double' | 'string' | 'bool' | 'bytes' | 'timestamp' | 'duration' | 'dyn'; schema?: Schema }
  | { k: 'list'; items: Shape; listKind?: ListKind; schema?: Schema }
  | { k: 'map'; values: Shape; schema?: Schema }
  | ObjectShape;

export interface ObjectShape {
  k: 'object';
  typeName: string;
  /** JSON property name -> CEL field name and shape. */
  fields: Map<string, { cel: string; shape: Shape }>;
  schema?: Schema;
  ctor?: typeof CelObject;
}

export function celTypeOf(s: Shape): CelTypeDecl {
  switch (s.k) {
    case 'int':
    case 'double':
    case 'string':
    case 'bool':
    case 'bytes':
    case 'dyn':
      return s.k;
    case 'timestamp':
      return 'google.protobuf.Timestamp';
    case 'duration':
      return 'google.protobuf.Duration';
    case 'list':
      return `list<${celTypeOf(s.items)}>`;
    case 'map':
      return `map<string, ${celTypeOf(s.values)}>`;
    case 'object':
      return s.typeName;
  }
}

export interface ShapeOptions {
  definitions: Record<string, Schema>;
  /** Whether a schema node is a resource root (apiVersion, kind, metadata.name/generateName visible). */
  isResource: (s: Schema) => boolean;
}

export function resolveRef(s: Schema, defs: Record<string, Schema>): Schema {
  let cur = s;
  for (let i = 0; i < 32 && cur.$ref; i++) {
    const name = cur.$ref.replace(/^#\/(components\/schemas|definitions)\//, '');
    const target = defs[name];
    if (!target) throw new Error(`unresolved $ref ${cur.$ref}`);
    // sibling keywords next to $ref (x-cluster-* extensions) override the target's
    const { $ref: _r, ...rest } = cur;
    cur = Object.keys(rest).length === 0 ? target : ({ ...target, ...rest } as Schema);
    if (!target.$ref) break;
  }
  return cur;
}

/** Builds the shape tree of a scope; returns it with the object types to declare. */
export function buildShapes(scope: Schema, opts: ShapeOptions): { root: Shape; types: ObjectShape[] } {
  const types: ObjectShape[] = [];
  const memo = new Map<Schema, Shape>();
  const usedNames = new Set<string>();

  const uniqueName = (base: string): string => {
    let n = base;
    for (let i = 2; usedNames.has(n); i++) n = `${base}${i}`;
    usedNames.add(n);
    return n;
  };

  const build = (raw: Schema, path: string): Shape => {
    const cached = memo.get(raw);
    if (cached) return cached;
    // A $ref with siblings resolves to a fresh merged object each time; memoize on the referenced
    // definition too, or a recursive shape (JSONSchemaProps) would never terminate.
    const target = raw.$ref ? opts.definitions[raw.$ref.replace(/^#\/(components\/schemas|definitions)\//, '')] : undefined;
    const targetCached = target && memo.get(target);
    if (targetCached) return targetCached;
    const s = raw.$ref ? resolveRef(raw, opts.definitions) : raw;
    const resolvedCached = memo.get(s);
    if (resolvedCached) return resolvedCached;
    const shape = buildResolved(s, path, target);
    memo.set(raw, shape);
    return shape;
  };

  const buildResolved = (s: Schema, path: string, alias?: Schema): Shape => {
    if (s['x-cluster-int-or-string']) return { k: 'dyn', schema: s };
    const resource = s.type === 'object' && opts.isResource(s);
    switch (s.type) {
      case 'integer':
        return { k: 'int', schema: s };
      case 'number':
        return { k: 'double', schema: s };
      case 'boolean':
        return { k: 'bool', schema: s };
      case 'string':
        if (s.format === 'date-time' || s.format === 'datetime' || s.format === 'date') return { k: 'timestamp', schema: s };
        if (s.format === 'duration') return { k: 'duration', schema: s };
        if (s.format === 'byte') return { k: 'bytes', schema: s };
        return { k: 'string', schema: s };
      case 'array': {
        if (!s.items) return { k: 'list', items: { k: 'dyn' }, schema: s };
        const items = build(s.items, `${path}.__items__`);
        const lt = s['x-cluster-list-type'];
        const listKind: ListKind | undefined =
          lt === 'set' ? { type: 'set' } : lt === 'map' ? { type: 'map', keys: (s['x-cluster-list-map-keys'] ?? []).map((k) => escapePropertyName(k) ?? k) } : undefined;
        return { k: 'list', items, listKind, schema: s };
      }
      case 'object': {
        const ap = s.additionalProperties;
        if (!resource && !s.properties && typeof ap === 'object' && ap !== null) {
          return { k: 'map', values: build(ap, `${path}.__values__`), schema: s };
        }
        if (!resource && !s.properties && s['x-cluster-preserve-unknown-fields']) return { k: 'dyn', schema: s };
        if (!resource && !s.properties && ap === true) return { k: 'map', values: { k: 'dyn' }, schema: s };
        const obj: ObjectShape = { k: 'object', typeName: uniqueName(path), fields: new Map(), schema: s };
        memo.set(s, obj);
        if (alias) memo.set(alias, obj);
        types.push(obj);
        for (const [name, prop] of Object.entries(s.properties ?? {})) {
          if (resource && name === 'metadata') continue;
          const cel = escapePropertyName(name);
          if (cel === undefined) continue;
          obj.fields.set(name, { cel, shape: build(prop, `${path}.${cel}`) });
        }
        if (resource) {
          if (!obj.fields.has('apiVersion')) obj.fields.set('apiVersion', { cel: 'apiVersion', shape: { k: 'string' } });
          if (!obj.fields.has('kind')) obj.fields.set('kind', { cel: 'kind', shape: { k: 'string' } });
          const meta: ObjectShape = { k: 'object', typeName: uniqueName(`${path}.metadata`), fields: new Map() };
          meta.fields.set('name', { cel: 'name', shape: { k: 'string' } });
          meta.fields.set('generateName', { cel: 'generateName', shape: { k: 'string' } });
          types.push(meta);
          obj.fields.set('metadata', { cel: 'metadata', shape: meta });
        }
        return obj;
      }
      default:
        return { k: 'dyn', schema: s };
    }
  };

  const root = build(scope, 'Object');
  return { root, types };
}

export function objectTypeDefs(types: ObjectShape[]): ObjectTypeDef[] {
  return types.map((t) => {
    const fields: Record<string, CelTypeDecl> = {};
    for (const f of t.fields.values()) fields[f.cel] = celTypeOf(f.shape);
    return { name: t.typeName, fields };
  });
}

/** Attaches the runtime classes of an environment to the object shapes. */
export function bindClasses(types: ObjectShape[], env: CelEnvironment): void {
  for (const t of types) t.ctor = env.objectClass(t.typeName);
}

/** Generic JSON -> CEL (dyn): integers are int, other numbers double, objects maps. */
export function jsonToDyn(v: unknown): unknown {
  if (v === null) return null;
  switch (typeof v) {
    case 'number':
      return Number.isInteger(v) ? BigInt(v) : v;
    case 'string':
    case 'boolean':
    case 'bigint':
      return v;
    case 'object': {
      if (Array.isArray(v)) return v.map(jsonToDyn);
      const m = new Map<string, unknown>();
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) m.set(k, jsonToDyn(x));
      return m;
    }
    default:
      return v;
  }
}

const GO_DURATION_UNITS: Record<string, bigint> = {
  ns: 1n, us: 1000n, µs: 1000n, μs: 1000n, ms: 1000000n, s: 1000000000n, m: 60000000000n, h: 3600000000000n,
};

/** Go time.ParseDuration; undefined when invalid. */
export function parseGoDuration(s: string): Duration | undefined {
  let rest = s;
  let neg = false;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    neg = rest[0] === '-';
    rest = rest.slice(1);
  }
  if (rest === '0') return new Duration(0n, 0);
  if (rest === '') return undefined;
  let total = 0n;
  const re = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/;
  while (rest.length > 0) {
    const m = re.exec(rest);
    if (!m || (m[1] === '' && (m[2] ?? '') === '')) return undefined;
    const unit = GO_DURATION_UNITS[m[3]];
    total += BigInt(m[1] || '0') * unit;
    if (m[2]) {
      const frac = m[2].slice(0, 18).padEnd(18, '0');
      total += (BigInt(frac) * unit) / 1000000000000000000n;
    }
    rest = rest.slice(m[0].length);
  }
  if (neg) total = -total;
  const seconds = total / 1000000000n;
  const nanos = Number(total % 1000000000n);
  return new Duration(seconds, nanos);
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2}))?$/;

/** A `date-time` (or `date`) schema value as a CEL timestamp, to the nanosecond; undefined when invalid. */
export function parseTimestamp(s: string): Date | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  // the JS parser decides validity as before; the precise instant (nanoseconds) comes from parseRfc3339
  const d = new Date(m[4] === undefined ? `${s}T00:00:00Z` : s.replace(' ', 'T'));
  if (Number.isNaN(d.getTime())) return undefined;
  return parseRfc3339(s, false) ?? d;
}

function decodeBase64(s: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return undefined;
  return new Uint8Array(Buffer.from(s, 'base64'));
}

/** JSON value -> CEL value according to the shape. Values that do not fit are passed through. */
export function toCel(v: unknown, shape: Shape): unknown {
  if (v === null || v === undefined) return v;
  switch (shape.k) {
    case 'dyn':
      return jsonToDyn(v);
    case 'int':
      if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
      return v;
    case 'double':
      if (typeof v === 'bigint') return Number(v);
      return v;
    case 'timestamp':
      return typeof v === 'string' ? (parseTimestamp(v) ?? v) : v;
    case 'duration':
      return typeof v === 'string' ? (parseGoDuration(v) ?? v) : v;
    case 'bytes':
      return typeof v === 'string' ? (decodeBase64(v) ?? v) : v;
    case 'string':
    case 'bool':
      return v;
    case 'list': {
      if (!Array.isArray(v)) return jsonToDyn(v);
      const out = v.map((x) => toCel(x, shape.items));
      return shape.listKind ? markList(out, shape.listKind) : out;
    }
    case 'map': {
      if (typeof v !== 'object' || Array.isArray(v)) return jsonToDyn(v);
      const m = new Map<string, unknown>();
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (x !== null) m.set(k, toCel(x, shape.values));
      return m;
    }
    case 'object': {
      if (typeof v !== 'object' || Array.isArray(v)) return jsonToDyn(v);
      const Ctor = shape.ctor;
      if (!Ctor) throw new Error(`object type ${shape.typeName} has no runtime class`);
      const o = new Ctor();
      const src = v as Record<string, unknown>;
      for (const [name, f] of shape.fields) {
        if (!Object.prototype.hasOwnProperty.call(src, name)) continue;
        let x = src[name];
        if (x === null || x === undefined) continue;
        if (name === 'metadata' && f.shape.k === 'object' && f.shape.fields.size === 2 && f.shape.fields.has('generateName')) {
          // resource metadata: only name and generateName are visible
          const mv = x as Record<string, unknown>;
          x = { name: mv.name, generateName: mv.generateName };
        }
        o.set(f.cel, toCel(x, f.shape));
      }
      return o;
    }
  }
}
