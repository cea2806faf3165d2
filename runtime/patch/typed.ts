// Schema-typed walks over JSON objects, as structured-merge-diff's `typed` package does them:
// the field set of a value (ToFieldSet), the comparison of two values (Compare), the apply merge
// (Merge), removal of a set of fields (RemoveItems), and EnsureNamedFieldsAreMembers.
//
// Type rules (schema-nav typeOf): objects with `x-cluster-map-type: atomic` and lists with
// `x-cluster-list-type: atomic` (the default for lists) are single leaves; `set` lists are keyed by
// value (`v:`), `map` lists by their key fields (`k:`); values without a schema are "deduced":
// objects granular, lists atomic.

import type { Schema } from '../schema/types.ts';
import { FieldSet, comparePathElements, pathToString, serializePathElement, type FieldPath, type PathElement } from './fieldpath.ts';
import { childSchema, compareStrings, isObject, itemSchema, jsonEqual, resolveSchema, typeOf, type Definitions, type JsonObject, type TypeNode } from './schema-nav.ts';

/** An object that does not fit its schema for field tracking (upstream: ValidationErrors from typed). */
export class TypedValueError extends Error {}

const UNTYPED: TypeNode = { kind: 'untyped' };

function atomicMap(n: TypeNode | 'leaf' | 'granularUntyped'): boolean {
  return typeof n === 'object' && n.kind === 'map' && n.atomic;
}

interface Ctx {
  defs: Definitions;
}

/** The node type to use for a value: untyped values are deduced from the value itself. */
function effective(t: TypeNode, v: unknown): TypeNode | 'leaf' | 'granularUntyped' {
  if (t.kind !== 'untyped') return t;
  if (isObject(v)) return 'granularUntyped';
  return 'leaf';
}

function fieldType(t: TypeNode | 'granularUntyped', key: string, ctx: Ctx): { type: TypeNode; declared: boolean } {
  if (t === 'granularUntyped' || t.kind !== 'map') return { type: UNTYPED, declared: false };
  const { schema, declared } = childSchema(t.schema, key, ctx.defs);
  if (!schema) return { type: UNTYPED, declared };
  return { type: typeOf(schema, ctx.defs), declared };
}

function elemSchema(t: Extract<TypeNode, { kind: 'list' }>, ctx: Ctx): Schema | undefined {
  return itemSchema(t.schema, ctx.defs);
}

/** The path element of one list item (keys of a map list, the value of a set list). */
export function listItemPathElement(t: Extract<TypeNode, { kind: 'list' }>, item: unknown, ctx: Ctx, path: FieldPath): PathElement {
  if (t.relationship === 'map' && t.keys.length > 0) {
    if (!isObject(item)) throw new TypedValueError(`${pathToString(path)}: expected map, got ${item === null ? 'null' : Array.isArray(item) ? 'list' : typeof item}`);
    const es = resolveSchema(elemSchema(t, ctx), ctx.defs);
    const key: [string, unknown][] = [];
    for (const k of t.keys) {
      if (Object.prototype.hasOwnProperty.call(item, k) && item[k] !== null) {
        key.push([k, item[k]]);
        continue;
      }
      const ks = resolveSchema(es?.properties?.[k], ctx.defs);
      if (ks && ks.default !== undefined) {
        key.push([k, ks.default]);
        continue;
      }
      throw new TypedValueError(
        `${pathToString(path)}: associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`,
      );
    }
    key.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return { key };
  }
  return { value: item };
}

// ------------------------------------------------------------------------------------------------
// ToFieldSet

export function toFieldSet(value: unknown, schema: Schema | undefined, defs: Definitions): FieldSet {
  const set = new FieldSet();
  const ctx: Ctx = { defs };
  walkSet(value, typeOf(schema, defs), [], set, ctx);
  return set;
}

/** Returns true when the node recorded itself as a leaf. */
function walkSet(v: unknown, t: TypeNode, path: PathElement[], set: FieldSet, ctx: Ctx): boolean {
  const e = effective(t, v);
  if (e === 'leaf' || (e !== 'granularUntyped' && e.kind === 'scalar')) {
    set.insert(path);
    return true;
  }
  if (e !== 'granularUntyped' && e.kind === 'list') {
    if (e.relationship === 'atomic') {
      set.insert(path);
      return true;
    }
    if (!Array.isArray(v)) return false;
    const seen = new Map<string, number>();
    const pes = v.map((item, i) => listItemPathElement(e, item, ctx, [...path, { index: i }]));
    const keyOf = (pe: PathElement): string => JSON.stringify(pe);
    for (const pe of pes) seen.set(keyOf(pe), (seen.get(keyOf(pe)) ?? 0) + 1);
    const et = typeOf(elemSchema(e, ctx), ctx.defs);
    const done = new Set<string>();
    v.forEach((item, i) => {
      const pe = pes[i];
      const k = keyOf(pe);
      const childPath = [...path, pe];
      if ((seen.get(k) ?? 0) > 1) {
        // duplicates are tracked as a whole (upstream: inserted once, not descended)
        if (!done.has(k)) set.insert(childPath);
        done.add(k);
        return;
      }
      const leaf = walkSet(item, et, childPath, set, ctx);
      if (!leaf) set.insert(childPath);
    });
    return false;
  }
  // maps (typed or deduced)
  if (e !== 'granularUntyped' && e.kind === 'map' && e.atomic) {
    set.insert(path);
    return true;
  }
  if (!isObject(v)) return false;
  for (const [k, val] of Object.entries(v)) {
    const { type, declared } = fieldType(e, k, ctx);
    const childPath = [...path, { field: k }];
    const leaf = walkSet(val, type, childPath, set, ctx);
    if (!leaf) {
      if (val === null || (isObject(val) && Object.keys(val).length === 0)) set.insert(childPath);
      else if (!declared) set.insert(childPath);
    }
  }
  return false;
}

// ------------------------------------------------------------------------------------------------
// Compare

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

const MISSING = undefined;

export function compare(lhs: unknown, rhs: unknown, schema: Schema | undefined, defs: Definitions): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  walkCompare(lhs, rhs, typeOf(schema, defs), [], c, { defs });
  return c;
}

function compareLeaf(l: unknown, r: unknown, path: PathElement[], c: Comparison): void {
  if (l === MISSING) c.added.insert(path);
  else if (r === MISSING) c.removed.insert(path);
  else if (!jsonEqual(l, r)) c.modified.insert(path);
}

function isEmptyish(v: unknown, kind: 'map' | 'list'): boolean {
  if (v === MISSING || v === null) return true;
  if (kind === 'map') return !isObject(v) || Object.keys(v).length === 0;
  return !Array.isArray(v) || v.length === 0;
}

function walkCompare(l: unknown, r: unknown, t: TypeNode, path: PathElement[], c: Comparison, ctx: Ctx): void {
  let node: TypeNode | 'leaf' | 'granularUntyped';
  if (t.kind === 'untyped') {
    const el = l === MISSING ? undefined : effective(t, l);
    const er = r === MISSING ? undefined : effective(t, r);
    node = el && er && el !== er ? 'leaf' : (er ?? el ?? 'leaf');
  } else node = t;

  if (node === 'leaf' || (node !== 'granularUntyped' && node.kind === 'scalar')) {
    compareLeaf(l, r, path, c);
    return;
  }
  if (node !== 'granularUntyped' && node.kind === 'list') {
    if (node.relationship === 'atomic' || (isEmptyish(l, 'list') && isEmptyish(r, 'list'))) {
      compareLeaf(l, r, path, c);
      return;
    }
    const ll = Array.isArray(l) ? l : [];
    const rl = Array.isArray(r) ? r : [];
    const lIdx = indexList(node, ll, path, ctx);
    const rIdx = indexList(node, rl, path, ctx);
    const et = typeOf(elemSchema(node, ctx), ctx.defs);
    for (const [k, { pe, item }] of lIdx) walkCompare(item, rIdx.get(k)?.item, et, [...path, pe], c, ctx);
    for (const [k, { pe, item }] of rIdx) if (!lIdx.has(k)) walkCompare(MISSING, item, et, [...path, pe], c, ctx);
  } else {
    if (atomicMap(node) || (isEmptyish(l, 'map') && isEmptyish(r, 'map'))) {
      compareLeaf(l, r, path, c);
      return;
    }
    const lm = isObject(l) ? l : {};
    const rm = isObject(r) ? r : {};
    for (const k of Object.keys(lm)) {
      walkCompare(lm[k], Object.prototype.hasOwnProperty.call(rm, k) ? rm[k] : MISSING, fieldType(node, k, ctx).type, [...path, { field: k }], c, ctx);
    }
    for (const k of Object.keys(rm)) {
      if (!Object.prototype.hasOwnProperty.call(lm, k)) walkCompare(MISSING, rm[k], fieldType(node, k, ctx).type, [...path, { field: k }], c, ctx);
    }
  }
  // post-item hook for non-leaf nodes
  if (path.length > 0) {
    if (l === MISSING) c.added.insert(path);
    else if (r === MISSING) c.removed.insert(path);
  }
}

/**
 * Whether a create may take the one-walk path (addedFieldsV1): the top-level type is a granular
 * map (typed or untyped), as it is for every resource kind.
 */
export function createTopType(schema: Schema | undefined, defs: Definitions): boolean {
  const t = typeOf(schema, defs);
  return t.kind === 'untyped' || (t.kind === 'map' && !t.atomic);
}

/**
 * The FieldsV1 of compare({}, obj).added, minus the paths at or under a member of `ignored`
 * (filterComparison), minus the members of `strip` (FieldSet.difference: their children stay), in
 * one walk that writes the FieldsV1 object directly: no field sets, no copies, no sorting of set
 * members. This is the managedFields entry of a create, on the path of every create. Undefined
 * where two list items would share one FieldsV1 key (compare merges them; the caller then takes
 * compare). Throws TypedValueError where compare would.
 */
export function addedFieldsV1(obj: JsonObject, schema: Schema | undefined, defs: Definitions, ignored: FieldSet, strip: FieldSet): JsonObject | undefined {
  const ctx: Ctx = { defs };
  const t = typeOf(schema, defs);
  const out = emitFields(obj, t.kind === 'untyped' ? 'granularUntyped' : t, ignored.empty() ? undefined : ignored, strip, false, [], ctx);
  return out === SHARED_ELEMENT ? undefined : (out ?? {});
}

/** Two list items with one FieldsV1 key (or with equal path elements): compare is the reference. */
const SHARED_ELEMENT = Symbol('shared list element');
type Emitted = JsonObject | undefined | typeof SHARED_ELEMENT;

/** The FieldsV1 entry of one element (undefined: none), as compare's set then FieldSet.emit would give it. */
function emitElement(r: unknown, t: TypeNode, pe: PathElement, key: string, ignored: FieldSet | undefined, strip: FieldSet | undefined, path: PathElement[], ctx: Ctx): Emitted {
  if (ignored?.members.has(key)) {
    // compare() types the whole object before ignored fields are filtered out: a value under an
    // ignored field that does not fit its schema still throws.
    emitElement(r, t, pe, key, undefined, undefined, path, ctx);
    return undefined;
  }
  const member = !strip?.members.has(key);
  const node: TypeNode | 'leaf' | 'granularUntyped' = t.kind === 'untyped' ? effective(t, r) : t;
  let content: Emitted;
  if (node === 'leaf' || (node !== 'granularUntyped' && node.kind === 'scalar')) content = undefined;
  else if (node !== 'granularUntyped' && node.kind === 'list') {
    if (node.relationship === 'atomic' || isEmptyish(r, 'list')) content = undefined;
    else {
      path.push(pe);
      content = emitItems(r as unknown[], node, ignored?.children.get(key)?.set, strip?.children.get(key)?.set, member, path, ctx);
      path.pop();
    }
  } else if (atomicMap(node) || isEmptyish(r, 'map')) content = undefined;
  else {
    path.push(pe);
    content = emitFields(r as JsonObject, node, ignored?.children.get(key)?.set, strip?.children.get(key)?.set, member, path, ctx);
    path.pop();
  }
  if (content === undefined) return member ? {} : undefined;
  return content;
}

/**
 * The entries of a granular map's fields, in field-name order (PathElement order for fields);
 * `self`: the map is a member too, so a non-empty result starts with `.`.
 */
function emitFields(rm: JsonObject, node: TypeNode | 'granularUntyped', ignored: FieldSet | undefined, strip: FieldSet | undefined, self: boolean, path: PathElement[], ctx: Ctx): Emitted {
  let out: JsonObject | undefined;
  for (const f of Object.keys(rm).sort(compareStrings)) {
    const key = `f:${f}`;
    const v = emitElement(rm[f], fieldType(node, f, ctx).type, { field: f }, key, ignored, strip, path, ctx);
    if (v === SHARED_ELEMENT) return v;
    if (v !== undefined) (out ??= self ? { '.': {} } : {})[key] = v;
  }
  return out;
}

/** The entries of a granular list's items, in PathElement order; `self` as for emitFields. */
function emitItems(list: unknown[], node: Extract<TypeNode, { kind: 'list' }>, ignored: FieldSet | undefined, strip: FieldSet | undefined, self: boolean, path: PathElement[], ctx: Ctx): Emitted {
  const et = typeOf(elemSchema(node, ctx), ctx.defs);
  const items = [...indexList(node, list, path, ctx).values()].map(({ pe, item }) => ({ pe, item, key: serializePathElement(pe) }));
  items.sort((a, b) => comparePathElements(a.pe, b.pe));
  const keys = new Set<string>();
  let out: JsonObject | undefined;
  for (let i = 0; i < items.length; i++) {
    const { pe, item, key } = items[i];
    if (keys.has(key) || (i > 0 && comparePathElements(items[i - 1].pe, pe) === 0)) return SHARED_ELEMENT;
    keys.add(key);
    const v = emitElement(item, et, pe, key, ignored, strip, path, ctx);
    if (v === SHARED_ELEMENT) return v;
    if (v !== undefined) (out ??= self ? { '.': {} } : {})[key] = v;
  }
  return out;
}

function indexList(t: Extract<TypeNode, { kind: 'list' }>, list: unknown[], path: PathElement[], ctx: Ctx): Map<string, { pe: PathElement; item: unknown }> {
  const out = new Map<string, { pe: PathElement; item: unknown }>();
  list.forEach((item, i) => {
    const pe = listItemPathElement(t, item, ctx, [...path, { index: i }]);
    const k = JSON.stringify(pe);
    if (!out.has(k)) out.set(k, { pe, item });
  });
  return out;
}

// ------------------------------------------------------------------------------------------------
// Merge (apply): the applied configuration wins on every leaf it sets; associative lists and
// granular maps merge item by item.

export function merge(lhs: unknown, rhs: unknown, schema: Schema | undefined, defs: Definitions): unknown {
  return walkMerge(lhs, rhs, typeOf(schema, defs), [], { defs });
}

function walkMerge(l: unknown, r: unknown, t: TypeNode, path: PathElement[], ctx: Ctx): unknown {
  let node: TypeNode | 'leaf' | 'granularUntyped';
  if (t.kind === 'untyped') {
    const el = l === MISSING ? undefined : effective(t, l);
    const er = r === MISSING ? undefined : effective(t, r);
    node = el && er && el !== er ? 'leaf' : (er ?? el ?? 'leaf');
  } else node = t;
  const keepRHS = (): unknown => (r !== MISSING ? r : l);

  if (node === 'leaf' || (node !== 'granularUntyped' && node.kind === 'scalar')) return keepRHS();
  if (node !== 'granularUntyped' && node.kind === 'list') {
    if (node.relationship === 'atomic' || (isEmptyish(l, 'list') && isEmptyish(r, 'list'))) return keepRHS();
    if (!Array.isArray(l) && !Array.isArray(r)) return keepRHS();
    const ll = Array.isArray(l) ? l : [];
    const rl = Array.isArray(r) ? r : [];
    const lIdx = indexList(node, ll, path, ctx);
    const rIdx = indexList(node, rl, path, ctx);
    const et = typeOf(elemSchema(node, ctx), ctx.defs);
    const out: unknown[] = [];
    const mergeItem = (k: string, pe: PathElement): void => {
      const v = walkMerge(lIdx.get(k)?.item, rIdx.get(k)?.item, et, [...path, pe], ctx);
      if (v !== MISSING) out.push(v);
    };
    // upstream's ordering: RHS order, with LHS-only items kept where they were
    const lOrder = [...lIdx.keys()];
    const rOrder = [...rIdx.keys()];
    const shared = rOrder.filter((k) => lIdx.has(k));
    let next: string | undefined = shared.shift();
    let li = 0;
    let ri = 0;
    while (li < lOrder.length || ri < rOrder.length) {
      if (li < lOrder.length && ri < rOrder.length) {
        const lk = lOrder[li];
        if (lk === rOrder[ri]) {
          mergeItem(lk, lIdx.get(lk)!.pe);
          li++;
          ri++;
          next = shared.shift();
          continue;
        }
        if (rIdx.has(lk) && next !== undefined && next !== lk) {
          li++;
          continue;
        }
      }
      if (li < lOrder.length) {
        const lk = lOrder[li];
        if (!rIdx.has(lk)) {
          mergeItem(lk, lIdx.get(lk)!.pe);
          li++;
          continue;
        }
      }
      if (ri < rOrder.length) {
        const rk = rOrder[ri];
        mergeItem(rk, rIdx.get(rk)!.pe);
        ri++;
        if (next !== undefined && next === rk) next = shared.shift();
      }
    }
    return out.length > 0 ? out : MISSING;
  }
  if (atomicMap(node) || (isEmptyish(l, 'map') && isEmptyish(r, 'map'))) return keepRHS();
  if (!isObject(l) && !isObject(r)) return keepRHS();
  const lm = isObject(l) ? l : {};
  const rm = isObject(r) ? r : {};
  const out: JsonObject = {};
  const put = (k: string, v: unknown): void => {
    if (v === MISSING) return;
    if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  };
  for (const k of Object.keys(lm)) {
    put(k, walkMerge(lm[k], Object.prototype.hasOwnProperty.call(rm, k) ? rm[k] : MISSING, fieldType(node, k, ctx).type, [...path, { field: k }], ctx));
  }
  for (const k of Object.keys(rm)) {
    if (!Object.prototype.hasOwnProperty.call(lm, k)) put(k, walkMerge(MISSING, rm[k], fieldType(node, k, ctx).type, [...path, { field: k }], ctx));
  }
  return Object.keys(out).length > 0 ? out : MISSING;
}

// ------------------------------------------------------------------------------------------------
// RemoveItems: drops every member of `set` (with everything under it) from the value.

export function removeItems(value: unknown, set: FieldSet, schema: Schema | undefined, defs: Definitions): unknown {
  return walkRemove(value, set, typeOf(schema, defs), [], { defs });
}

function walkRemove(v: unknown, set: FieldSet, t: TypeNode, path: PathElement[], ctx: Ctx): unknown {
  const e = effective(t, v);
  if (e === 'leaf' || (e !== 'granularUntyped' && e.kind === 'scalar')) return v;
  if (e !== 'granularUntyped' && e.kind === 'list') {
    if (e.relationship === 'atomic' || !Array.isArray(v)) return v;
    const et = typeOf(elemSchema(e, ctx), ctx.defs);
    const out: unknown[] = [];
    v.forEach((item, i) => {
      const pe = listItemPathElement(e, item, ctx, [...path, { index: i }]);
      if (set.hasMember(pe)) return;
      const sub = set.child(pe);
      out.push(sub && !sub.empty() ? walkRemove(item, sub, et, [...path, pe], ctx) : item);
    });
    return out;
  }
  if (atomicMap(e) || !isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, val] of Object.entries(v)) {
    const pe: PathElement = { field: k };
    if (set.hasMember(pe)) continue;
    const sub = set.child(pe);
    const nv = sub && !sub.empty() ? walkRemove(val, sub, fieldType(e, k, ctx).type, [...path, pe], ctx) : val;
    if (k === '__proto__') Object.defineProperty(out, k, { value: nv, enumerable: true, writable: true, configurable: true });
    else out[k] = nv;
  }
  return out;
}

// ------------------------------------------------------------------------------------------------
// EnsureNamedFieldsAreMembers: declared (struct) fields on the way to a member become members.

export function ensureNamedFieldsAreMembers(set: FieldSet, schema: Schema | undefined, defs: Definitions): FieldSet {
  return ensureNamed(set, typeOf(schema, defs), { defs });
}

function ensureNamed(set: FieldSet, t: TypeNode, ctx: Ctx): FieldSet {
  const out = new FieldSet();
  for (const [k, pe] of set.members) out.members.set(k, pe);
  for (const [k, c] of set.children) {
    let childType: TypeNode = UNTYPED;
    if ('field' in c.pe) {
      if (t.kind === 'map') {
        const { type, declared } = fieldType(t, c.pe.field, ctx);
        childType = type;
        if (declared && t.hasFields) out.members.set(k, c.pe);
      }
    } else if (t.kind === 'list') {
      childType = typeOf(elemSchema(t, ctx), ctx.defs);
    }
    out.children.set(k, { pe: c.pe, set: ensureNamed(c.set, childType, ctx) });
  }
  return out;
}
