// Schema navigation shared by strategic merge patch and server-side apply.
// Pure helpers: resolve `$ref`s against the named shapes and answer "what is the schema of
// this child", "how does this list merge", "is this map atomic". No I/O.

import { isObject } from '../json/is-object.ts';
import type { Schema } from '../schema/types.ts';

export type Definitions = Record<string, Schema>;

const REF_PREFIX = '#/components/schemas/';

/** Resolved nodes per definitions and node: the walks resolve the same few nodes once per list item or key. */
const resolvedCache = new WeakMap<Definitions, WeakMap<Schema, Schema | null>>();

/** Follows `$ref` (and a lone `allOf: [{$ref}]`) until a concrete node; undefined stays undefined. Schemas are never modified. */
export function resolveSchema(schema: Schema | undefined, defs: Definitions): Schema | undefined {
  if (schema === undefined) return undefined;
  let byNode = resolvedCache.get(defs);
  if (!byNode) {
    byNode = new WeakMap();
    resolvedCache.set(defs, byNode);
  }
  const hit = byNode.get(schema);
  if (hit !== undefined) return hit ?? undefined;
  const resolved = resolveUncached(schema, defs);
  byNode.set(schema, resolved ?? null);
  return resolved;
}

function resolveUncached(schema: Schema, defs: Definitions): Schema | undefined {
  let s: Schema | undefined = schema;
  for (let depth = 0; s && depth < 64; depth++) {
    if (s.$ref) {
      const name: string = s.$ref.startsWith(REF_PREFIX) ? s.$ref.slice(REF_PREFIX.length) : s.$ref.slice(s.$ref.lastIndexOf('/') + 1);
      const target: Schema | undefined = defs[name];
      if (!target) return undefined;
      // keep extensions written beside the $ref (they win, as a description does)
      const extras = Object.keys(s).filter((k) => k !== '$ref' && k !== 'description');
      if (extras.length === 0) {
        s = target;
      } else {
        const merged: Schema = { ...target };
        for (const k of extras) (merged as Record<string, unknown>)[k] = (s as Record<string, unknown>)[k];
        s = merged;
      }
      continue;
    }
    if (s.allOf && s.allOf.length === 1 && !s.type && !s.properties && !s.items) {
      s = s.allOf[0];
      continue;
    }
    return s;
  }
  return s;
}

/** The schema of field `key` of an object node (declared property, else additionalProperties). */
export function childSchema(parent: Schema | undefined, key: string, defs: Definitions): { schema: Schema | undefined; declared: boolean } {
  const p = resolveSchema(parent, defs);
  if (!p) return { schema: undefined, declared: false };
  const prop = p.properties?.[key];
  if (prop) return { schema: resolveSchema(prop, defs), declared: true };
  if (isObject(p.additionalProperties)) return { schema: resolveSchema(p.additionalProperties as Schema, defs), declared: false };
  return { schema: undefined, declared: false };
}

export function itemSchema(list: Schema | undefined, defs: Definitions): Schema | undefined {
  const l = resolveSchema(list, defs);
  return l?.items ? resolveSchema(l.items, defs) : undefined;
}

/** Patch strategies of a node as strategic merge patch reads them (`merge`, `replace`, `retainKeys`, comma separated). */
export function patchStrategies(s: Schema | undefined): string[] {
  const raw = s?.['x-cluster-patch-strategy'];
  if (typeof raw !== 'string' || raw === '') return [];
  return raw.split(',').map((x) => x.trim()).filter((x) => x !== '');
}

export function patchMergeKey(s: Schema | undefined): string {
  const k = s?.['x-cluster-patch-merge-key'];
  return typeof k === 'string' ? k : '';
}

// ---------------------------------------------------------------------------------------------
// The type view server-side apply needs (structured-merge-diff's schema.Atom, simplified).

export type TypeNode =
  | { kind: 'scalar' }
  /** No schema (unknown or preserved fields): maps are granular, lists atomic, as upstream's "deduced" type. */
  | { kind: 'untyped' }
  | { kind: 'map'; schema: Schema; atomic: boolean; hasFields: boolean }
  | { kind: 'list'; schema: Schema; relationship: 'atomic' | 'set' | 'map'; keys: string[] };

/**
 * Classifies a schema node. Lists without `x-cluster-list-type` follow upstream's OpenAPI
 * conversion: patch strategy `merge` with a merge key makes a map list keyed by it, `merge`
 * alone a set, anything else atomic.
 */
export function typeOf(schema: Schema | undefined, defs: Definitions): TypeNode {
  if (schema === undefined) return UNTYPED_NODE;
  let byNode = typeCache.get(defs);
  if (!byNode) {
    byNode = new WeakMap();
    typeCache.set(defs, byNode);
  }
  let t = byNode.get(schema);
  if (t === undefined) {
    t = typeOfUncached(schema, defs);
    byNode.set(schema, t);
  }
  return t;
}

const UNTYPED_NODE: TypeNode = Object.freeze({ kind: 'untyped' });
const SCALAR_NODE: TypeNode = Object.freeze({ kind: 'scalar' });

/** Type nodes per definitions and schema node, made once: the walks ask for the same few per key or list item, and per-node caches (typed.ts) key on them. */
const typeCache = new WeakMap<Definitions, WeakMap<Schema, TypeNode>>();

function typeOfUncached(schema: Schema, defs: Definitions): TypeNode {
  const s = resolveSchema(schema, defs);
  if (!s) return UNTYPED_NODE;
  if (s['x-cluster-int-or-string']) return SCALAR_NODE;
  const t = s.type ?? (s.properties || s.additionalProperties ? 'object' : s.items ? 'array' : undefined);
  if (t === 'object') {
    const hasFields = !!s.properties && Object.keys(s.properties).length > 0;
    return { kind: 'map', schema: s, atomic: s['x-cluster-map-type'] === 'atomic', hasFields };
  }
  if (t === 'array') {
    const lt = s['x-cluster-list-type'];
    if (lt === 'map') return { kind: 'list', schema: s, relationship: 'map', keys: s['x-cluster-list-map-keys'] ?? [] };
    if (lt === 'set') return { kind: 'list', schema: s, relationship: 'set', keys: [] };
    if (lt === 'atomic') return { kind: 'list', schema: s, relationship: 'atomic', keys: [] };
    if (patchStrategies(s).includes('merge')) {
      const mk = patchMergeKey(s);
      return mk ? { kind: 'list', schema: s, relationship: 'map', keys: [mk] } : { kind: 'list', schema: s, relationship: 'set', keys: [] };
    }
    return { kind: 'list', schema: s, relationship: 'atomic', keys: [] };
  }
  if (t === undefined) return UNTYPED_NODE;
  return SCALAR_NODE;
}

/** Byte-wise (UTF-8) string comparison, as Go's strings.Compare. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  // UTF-16 code units order as UTF-8 bytes do except around surrogates: compare code units from
  // the first difference, and encode only when a surrogate is involved there.
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (!(i > 0 && isSurrogate(a.charCodeAt(i - 1)))) {
    if (i === n) return a.length < b.length ? -1 : 1;
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (!isSurrogate(ca) && !isSurrogate(cb)) return ca < cb ? -1 : 1;
  }
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function isSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdfff;
}
