// Schema-typed walks over JSON objects, as structured-merge-diff's `typed` package does them:
// the field set of a value (ToFieldSet), the comparison of two values (Compare), the apply merge
// (Merge), removal of a set of fields (RemoveItems), and EnsureNamedFieldsAreMembers.
//
// Type rules (schema-nav typeOf): objects with `x-cluster-map-type: atomic` and lists with
// `x-cluster-list-type: atomic` (the default for lists) are single leaves; `set` lists are keyed by
// value (`v:`), `map` lists by their key fields (`k:`); values without a schema are "deduced":
// objects granular, lists atomic.

import type { Schema } from '../schema/types.ts';
import { FIELDS_V1_LEAF, FieldSet, comparePathElements, pathToString, serializePathElement, type FieldPath, type PathElement } from './fieldpath.ts';
import { jsonEqual } from '../json/deep-equal.ts';
import { isObject, type JsonObject } from '../json/is-object.ts';
import { DEEP_LEVELS, markDeep } from '../json/stringify.ts';
import { compareStrings, itemSchema, resolveSchema, typeOf, type Definitions, type TypeNode } from './schema-nav.ts';

/** An object that does not fit its schema for field tracking (upstream: ValidationErrors from typed). */
export class TypedValueError extends Error {}

const UNTYPED: TypeNode = { kind: 'untyped' };

function atomicMap(n: TypeNode | 'leaf' | 'granularUntyped'): boolean {
  return typeof n === 'object' && n.kind === 'map' && n.atomic;
}

interface Ctx {
  defs: Definitions;
  /** merge: collects the containers it makes (the rest of its result is shared with its inputs). */
  fresh?: FreshContainers;
}

/** The node type to use for a value: untyped values are deduced from the value itself. */
function effective(t: TypeNode, v: unknown): TypeNode | 'leaf' | 'granularUntyped' {
  if (t.kind !== 'untyped') return t;
  if (isObject(v)) return 'granularUntyped';
  return 'leaf';
}

interface FieldType {
  readonly type: TypeNode;
  readonly declared: boolean;
}

const UNTYPED_FIELD: FieldType = { type: UNTYPED, declared: false };

/** A map node's field types: declared properties by name, and the one type of every other key. */
interface MapFields {
  readonly declared: Map<string, FieldType>;
  readonly other: FieldType;
}

/** Per map type node (typeOf gives one node per schema node): a 100,000-key map looks its value type up once, not per key. */
const mapFieldsCache = new WeakMap<TypeNode, MapFields>();

function mapFields(t: Extract<TypeNode, { kind: 'map' }>, ctx: Ctx): MapFields {
  let f = mapFieldsCache.get(t);
  if (f === undefined) {
    const declared = new Map<string, FieldType>();
    for (const [name, prop] of Object.entries(t.schema.properties ?? {})) {
      const schema = resolveSchema(prop, ctx.defs);
      declared.set(name, { type: schema ? typeOf(schema, ctx.defs) : UNTYPED, declared: true });
    }
    const extra = isObject(t.schema.additionalProperties) ? resolveSchema(t.schema.additionalProperties as Schema, ctx.defs) : undefined;
    f = { declared, other: extra ? { type: typeOf(extra, ctx.defs), declared: false } : UNTYPED_FIELD };
    mapFieldsCache.set(t, f);
  }
  return f;
}

function fieldType(t: TypeNode | 'granularUntyped', key: string, ctx: Ctx): FieldType {
  if (t === 'granularUntyped' || t.kind !== 'map') return UNTYPED_FIELD;
  const f = mapFields(t, ctx);
  return f.declared.get(key) ?? f.other;
}

function elemSchema(t: Extract<TypeNode, { kind: 'list' }>, ctx: Ctx): Schema | undefined {
  return itemSchema(t.schema, ctx.defs);
}

/**
 * The path element of one list item (keys of a map list, the value of a set list); `path` and
 * `index` locate the item for an error (the item's path is only built then).
 */
export function listItemPathElement(t: Extract<TypeNode, { kind: 'list' }>, item: unknown, ctx: Ctx, path: FieldPath, index: number): PathElement {
  if (t.relationship === 'map' && t.keys.length > 0) {
    if (!isObject(item)) throw new TypedValueError(`${pathToString([...path, { index }])}: expected map, got ${item === null ? 'null' : Array.isArray(item) ? 'list' : typeof item}`);
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
        `${pathToString([...path, { index }])}: associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`,
      );
    }
    if (key.length > 1) key.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return { key };
  }
  return { value: item };
}

// ------------------------------------------------------------------------------------------------
// ToFieldSet

export function toFieldSet(value: unknown, schema: Schema | undefined, defs: Definitions): FieldSet {
  const set = new FieldSet();
  const ctx: Ctx = { defs };
  walkSet(value, typeOf(schema, defs), PathCursor.root(set), [], ctx);
  return set;
}

/**
 * Where a walk stands in the field sets it builds (one, or compare's three): a path's node in
 * each set is made when first needed and kept, so inserting a path costs O(1) instead of a walk
 * from the root (O(depth) per insert, O(depth²) over a deep object). The key is serialized once.
 */
class PathCursor {
  private key: string | undefined;
  private n0: FieldSet | undefined;
  private n1: FieldSet | undefined;
  private n2: FieldSet | undefined;

  private constructor(
    private readonly parent: PathCursor | undefined,
    private readonly pe: PathElement | undefined,
  ) {}

  static root(...sets: FieldSet[]): PathCursor {
    const c = new PathCursor(undefined, undefined);
    [c.n0, c.n1, c.n2] = sets;
    return c;
  }

  /** The cursor of a child path. */
  at(pe: PathElement): PathCursor {
    return new PathCursor(this, pe);
  }

  /** Inserts the path of a child (element `pe`, serialized `key`) into set `which`, with no cursor for it: a walk's leaves. */
  insertChild(which: 0 | 1 | 2, key: string, pe: PathElement): void {
    this.node(which).members.set(key, pe);
  }

  /** Inserts the cursor's path into set `which` (the empty root path is never a member, as in FieldSet.insert). */
  insert(which: 0 | 1 | 2 = 0): void {
    if (this.parent) this.parent.node(which).members.set(this.keyOf(), this.pe as PathElement);
  }

  private keyOf(): string {
    return (this.key ??= serializePathElement(this.pe as PathElement));
  }

  private made(which: 0 | 1 | 2): FieldSet | undefined {
    return which === 0 ? this.n0 : which === 1 ? this.n1 : this.n2;
  }

  /** The set node of this path in set `which`, made with its missing ancestors (a loop: paths may be 10,000 deep). */
  private node(which: 0 | 1 | 2): FieldSet {
    const missing: PathCursor[] = [];
    let c: PathCursor = this;
    while (!c.made(which)) {
      missing.push(c);
      c = c.parent as PathCursor;
    }
    let set = c.made(which) as FieldSet;
    for (let i = missing.length - 1; i >= 0; i--) {
      const m = missing[i];
      set = set.childFor(m.keyOf(), m.pe as PathElement);
      if (which === 0) m.n0 = set;
      else if (which === 1) m.n1 = set;
      else m.n2 = set;
    }
    return set;
  }
}

function hasAnyKey(o: JsonObject): boolean {
  for (const k in o) if (Object.prototype.hasOwnProperty.call(o, k)) return true;
  return false;
}

/** What walkSet found: a leaf (it recorded itself), a node, or a node whose value is an object without keys. */
const NODE = 0;
const LEAF = 1;
const EMPTY_NODE = 2;
type Walked = typeof NODE | typeof LEAF | typeof EMPTY_NODE;

/** A node's code for `v`: EMPTY_NODE for an object without keys (its parent records it then). */
function nodeOf(v: unknown): Walked {
  return isObject(v) && !hasAnyKey(v) ? EMPTY_NODE : NODE;
}

/** Recurses once per nesting level; `path` is a stack for errors. */
function walkSet(v: unknown, t: TypeNode, here: PathCursor, path: PathElement[], ctx: Ctx): Walked {
  if (t.kind === 'untyped') return setUntyped(v, here);
  const e = effective(t, v);
  if (e === 'leaf' || (e !== 'granularUntyped' && e.kind === 'scalar')) {
    here.insert();
    return LEAF;
  }
  if (e !== 'granularUntyped' && e.kind === 'list') {
    if (e.relationship === 'atomic') {
      here.insert();
      return LEAF;
    }
    if (!Array.isArray(v)) return nodeOf(v);
    const pes = v.map((item, i) => listItemPathElement(e, item, ctx, path, i));
    // repeats are found by the element's identity (its JSON, not its FieldsV1 key), as they always were
    const ids = pes.map(elementId);
    const seen = new Map<string, number>();
    for (const id of ids) seen.set(id, (seen.get(id) ?? 0) + 1);
    const et = typeOf(elemSchema(e, ctx), ctx.defs);
    const done = new Set<string>();
    for (let i = 0; i < v.length; i++) {
      const pe = pes[i];
      const id = ids[i];
      const child = here.at(pe);
      if ((seen.get(id) ?? 0) > 1) {
        // duplicates are tracked as a whole (upstream: inserted once, not descended)
        if (!done.has(id)) child.insert();
        done.add(id);
        continue;
      }
      path.push(pe);
      const walked = walkSet(v[i], et, child, path, ctx);
      path.pop();
      if (walked !== LEAF) child.insert();
    }
    return NODE;
  }
  // maps (typed or deduced)
  if (e !== 'granularUntyped' && e.kind === 'map' && e.atomic) {
    here.insert();
    return LEAF;
  }
  if (!isObject(v)) return NODE;
  const keys = Object.keys(v);
  for (const k of keys) {
    const val = v[k];
    const { type, declared } = fieldType(e, k, ctx);
    const pe = { field: k };
    if (type.kind === 'scalar') {
      // a leaf records itself (walkSet's first branch), without a cursor for it
      here.insertChild(0, `f:${k}`, pe);
      continue;
    }
    const child = here.at(pe);
    path.push(pe);
    const walked = walkSet(val, type, child, path, ctx);
    path.pop();
    // a declared field is a member when it is null or an empty map, an undeclared one always
    if (walked !== LEAF && (val === null || walked === EMPTY_NODE || !declared)) child.insert();
  }
  return keys.length === 0 ? EMPTY_NODE : NODE;
}

/**
 * walkSet of untyped (preserved) data, breadth first with a queue: every key's path is a member,
 * a map's as well as a leaf's, inserted in the order the recursive walk inserts them. Preserved
 * fields may nest 10,000 deep.
 */
function setUntyped(v: unknown, here: PathCursor): Walked {
  if (!isObject(v)) {
    here.insert();
    return LEAF;
  }
  const queue: [JsonObject, PathCursor][] = [[v, here]];
  let rootKeys = 0;
  for (let i = 0; i < queue.length; i++) {
    const [map, at] = queue[i];
    const keys = Object.keys(map);
    if (i === 0) rootKeys = keys.length;
    for (const k of keys) {
      const child = at.at({ field: k });
      child.insert();
      const val = map[k];
      if (isObject(val)) queue.push([val, child]);
    }
  }
  return rootKeys === 0 ? EMPTY_NODE : NODE;
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
  walkCompare(lhs, rhs, typeOf(schema, defs), PathCursor.root(c.added, c.modified, c.removed), [], { defs });
  return c;
}

const ADDED = 0;
const MODIFIED = 1;
const REMOVED = 2;

const NO_CHANGE = -1;

function leafChange(l: unknown, r: unknown): typeof ADDED | typeof MODIFIED | typeof REMOVED | typeof NO_CHANGE {
  if (l === MISSING) return ADDED;
  if (r === MISSING) return REMOVED;
  return jsonEqual(l, r) ? NO_CHANGE : MODIFIED;
}

function compareLeaf(l: unknown, r: unknown, here: PathCursor): void {
  const change = leafChange(l, r);
  if (change !== NO_CHANGE) here.insert(change);
}

/**
 * A map's own keys ([] for a non-map). The map walks take them once and judge emptiness by them:
 * V8's for-in collects every key of a dictionary-mode (large) object before the first one.
 */
function mapKeys(v: unknown): string[] {
  return isObject(v) ? Object.keys(v) : [];
}

/** Absent, null, not a list, or an empty list (maps judge emptiness by mapKeys). */
function isEmptyList(v: unknown): boolean {
  return !Array.isArray(v) || v.length === 0;
}

/** Recurses once per nesting level of typed data (untyped data is compared without recursion); `path` is a stack for errors. */
function walkCompare(l: unknown, r: unknown, t: TypeNode, here: PathCursor, path: PathElement[], ctx: Ctx): void {
  if (t.kind === 'untyped') return compareUntyped(l, r, here);
  const node = t;
  if (node.kind === 'scalar') {
    compareLeaf(l, r, here);
    return;
  }
  if (node.kind === 'list') {
    if (node.relationship === 'atomic' || (isEmptyList(l) && isEmptyList(r))) {
      compareLeaf(l, r, here);
      return;
    }
    const ll = Array.isArray(l) ? l : [];
    const rl = Array.isArray(r) ? r : [];
    const lIdx = indexList(node, ll, path, ctx);
    const rIdx = indexList(node, rl, path, ctx);
    const et = typeOf(elemSchema(node, ctx), ctx.defs);
    for (const [k, { pe, item }] of lIdx) {
      path.push(pe);
      walkCompare(item, rIdx.get(k)?.item, et, here.at(pe), path, ctx);
      path.pop();
    }
    for (const [k, { pe, item }] of rIdx) {
      if (lIdx.has(k)) continue;
      path.push(pe);
      walkCompare(MISSING, item, et, here.at(pe), path, ctx);
      path.pop();
    }
  } else {
    const lk = atomicMap(node) ? [] : mapKeys(l);
    const rk = atomicMap(node) ? [] : mapKeys(r);
    if (atomicMap(node) || (lk.length === 0 && rk.length === 0)) {
      compareLeaf(l, r, here);
      return;
    }
    const lm = isObject(l) ? l : {};
    const rm = isObject(r) ? r : {};
    for (const k of lk) {
      const pe = { field: k };
      const type = fieldType(node, k, ctx).type;
      const rv = Object.prototype.hasOwnProperty.call(rm, k) ? rm[k] : MISSING;
      if (type.kind === 'scalar') {
        // a leaf (a 100,000-key map is all leaves): compareLeaf without a cursor for it
        const change = leafChange(lm[k], rv);
        if (change !== NO_CHANGE) here.insertChild(change, `f:${k}`, pe);
        continue;
      }
      path.push(pe);
      walkCompare(lm[k], rv, type, here.at(pe), path, ctx);
      path.pop();
    }
    for (const k of rk) {
      if (Object.prototype.hasOwnProperty.call(lm, k)) continue;
      const pe = { field: k };
      const type = fieldType(node, k, ctx).type;
      if (type.kind === 'scalar') {
        here.insertChild(ADDED, `f:${k}`, pe);
        continue;
      }
      path.push(pe);
      walkCompare(MISSING, rm[k], type, here.at(pe), path, ctx);
      path.pop();
    }
  }
  // post-item hook for non-leaf nodes (the root path is never inserted)
  if (l === MISSING) here.insert(ADDED);
  else if (r === MISSING) here.insert(REMOVED);
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
  emittedDeep = false;
  const out = emitFields(obj, Object.keys(obj), t.kind === 'untyped' ? 'granularUntyped' : t, ignored.empty() ? undefined : ignored, strip, false, [], ctx);
  if (out === SHARED_ELEMENT) return undefined;
  // a deep tree is serialized by the linear path (runtime/json/stringify.ts)
  if (emittedDeep && out !== undefined) markDeep(out);
  return out ?? {};
}

/** Two list items with one FieldsV1 key (or with equal path elements): compare is the reference. */
const SHARED_ELEMENT = Symbol('shared list element');
type Emitted = JsonObject | undefined | typeof SHARED_ELEMENT;

/** The FieldsV1 entry of one element (undefined: none), as compare's set then FieldSet.emit would give it. */
function emitElement(r: unknown, t: TypeNode, pe: PathElement, key: string, ignored: FieldSet | undefined, strip: FieldSet | undefined, path: PathElement[], ctx: Ctx): Emitted {
  if (t.kind === 'untyped' && ignored === undefined && strip === undefined) return emitUntyped(r);
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
    if (node.relationship === 'atomic' || isEmptyList(r)) content = undefined;
    else {
      path.push(pe);
      content = emitItems(r as unknown[], node, ignored?.children.get(key)?.set, strip?.children.get(key)?.set, member, path, ctx);
      path.pop();
    }
  } else {
    const keys = atomicMap(node) ? [] : mapKeys(r);
    if (keys.length === 0) content = undefined;
    else {
      path.push(pe);
      content = emitFields(r as JsonObject, keys, node, ignored?.children.get(key)?.set, strip?.children.get(key)?.set, member, path, ctx);
      path.pop();
    }
  }
  if (content === undefined) return member ? FIELDS_V1_LEAF : undefined;
  return content;
}

/**
 * emitElement of an untyped (preserved) member with nothing ignored or stripped under it, with an
 * explicit stack: a map with keys is `{".": {}, "f:<key>": ...}` in key order, anything else `{}`.
 * Preserved fields may nest 10,000 deep.
 */
function emitUntyped(r: unknown): JsonObject {
  const entriesOf = (v: unknown): string[] => (isObject(v) ? Object.keys(v).sort(compareStrings) : []);
  const rootKeys = entriesOf(r);
  if (rootKeys.length === 0) return FIELDS_V1_LEAF;
  const root: JsonObject = { '.': FIELDS_V1_LEAF };
  const pending: [JsonObject, string[], JsonObject, number][] = [[r as JsonObject, rootKeys, root, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, keys, out, levels] = next;
    if (levels > DEEP_LEVELS) emittedDeep = true;
    for (const k of keys) {
      const child = value[k];
      const childKeys = entriesOf(child);
      const emitted: JsonObject = childKeys.length === 0 ? FIELDS_V1_LEAF : { '.': FIELDS_V1_LEAF };
      out[`f:${k}`] = emitted;
      if (childKeys.length > 0) pending.push([child as JsonObject, childKeys, emitted, levels + 1]);
    }
  }
  return root;
}

/** Set by emitUntyped when it wrote a FieldsV1 tree nested deeper than DEEP_LEVELS (addedFieldsV1 then marks its result). */
let emittedDeep = false;

/**
 * The entries of a granular map's fields, in field-name order (PathElement order for fields);
 * `self`: the map is a member too, so a non-empty result starts with `.`.
 */
function emitFields(rm: JsonObject, keys: string[], node: TypeNode | 'granularUntyped', ignored: FieldSet | undefined, strip: FieldSet | undefined, self: boolean, path: PathElement[], ctx: Ctx): Emitted {
  if (path.length > DEEP_LEVELS) emittedDeep = true;
  let out: JsonObject | undefined;
  for (const f of keys.sort(compareStrings)) {
    const key = `f:${f}`;
    const type = fieldType(node, f, ctx).type;
    if (type.kind === 'scalar') {
      // emitElement of a leaf, without the call: an ignored or stripped leaf has no entry
      if (ignored?.members.has(key) || strip?.members.has(key)) continue;
      (out ??= self ? { '.': FIELDS_V1_LEAF } : {})[key] = FIELDS_V1_LEAF;
      continue;
    }
    const v = emitElement(rm[f], type, { field: f }, key, ignored, strip, path, ctx);
    if (v === SHARED_ELEMENT) return v;
    if (v !== undefined) (out ??= self ? { '.': FIELDS_V1_LEAF } : {})[key] = v;
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
    if (v !== undefined) (out ??= self ? { '.': FIELDS_V1_LEAF } : {})[key] = v;
  }
  return out;
}

/**
 * A list item's identity within its list: equal exactly when JSON.stringify of the path elements
 * is, built without it (a JSON text per item costs microseconds; lists may hold thousands):
 * strings and names length-prefixed, other values as their JSON text (which delimits itself).
 */
function elementId(pe: PathElement): string {
  if ('key' in pe) {
    let s = 'k';
    for (const [n, v] of pe.key) s += `${n.length}:${n}${valueId(v)}`;
    return s;
  }
  if ('value' in pe) return `v${valueId(pe.value)}`;
  return 'field' in pe ? `f${pe.field}` : `i${pe.index}`;
}

function valueId(v: unknown): string {
  if (typeof v === 'string') return `s${v.length}:${v}`;
  if (typeof v === 'boolean') return v ? 't' : 'f';
  // numbers end with `;` (their text has none); JSON of objects, lists and null delimits itself
  if (typeof v === 'number') return `n${JSON.stringify(v)};`;
  return v === undefined ? 'u' : `j${JSON.stringify(v)}`;
}

function indexList(t: Extract<TypeNode, { kind: 'list' }>, list: unknown[], path: PathElement[], ctx: Ctx): Map<string, { pe: PathElement; item: unknown }> {
  const out = new Map<string, { pe: PathElement; item: unknown }>();
  list.forEach((item, i) => {
    const pe = listItemPathElement(t, item, ctx, path, i);
    const k = elementId(pe);
    if (!out.has(k)) out.set(k, { pe, item });
  });
  return out;
}

// ------------------------------------------------------------------------------------------------
// Merge (apply): the applied configuration wins on every leaf it sets; associative lists and
// granular maps merge item by item.

/**
 * The containers merge made, each mapped to whether it is clean: no null map entry and nothing
 * but scalars and clean containers it made below it (apply leaves those as they are).
 */
export type FreshContainers = WeakMap<object, boolean>;

/** Whether a value put into a fresh container keeps it clean. */
function keepsClean(v: unknown, fresh: FreshContainers): boolean {
  return typeof v !== 'object' || (v !== null && fresh.get(v) === true);
}

/**
 * The merged value. It shares leaves, atomic values and preserved subtrees with `lhs` and `rhs`;
 * the containers it makes itself are recorded in `fresh` when given (apply changes only those in place).
 */
export function merge(lhs: unknown, rhs: unknown, schema: Schema | undefined, defs: Definitions, fresh?: FreshContainers): unknown {
  return walkMerge(lhs, rhs, typeOf(schema, defs), [], { defs, fresh });
}

/** Sets `out[k]`, as an own property even for `__proto__`. */
function putKey(out: JsonObject, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  else out[k] = v;
}

/** Recurses once per nesting level of typed data (untyped data is merged without recursion); `path` is a stack for errors. */
function walkMerge(l: unknown, r: unknown, t: TypeNode, path: PathElement[], ctx: Ctx): unknown {
  if (t.kind === 'untyped') return mergeUntyped(l, r, ctx.fresh);
  // the applied value wins on leaves (no closure per call: this runs per key of a map)
  if (t.kind === 'scalar') return r !== MISSING ? r : l;
  if (t.kind === 'list') return mergeList(l, r, t, path, ctx);
  if (atomicMap(t)) return r !== MISSING ? r : l;
  const lk = mapKeys(l);
  const rk = mapKeys(r);
  if (lk.length === 0 && rk.length === 0) return r !== MISSING ? r : l;
  const lm = isObject(l) ? l : {};
  const rm = isObject(r) ? r : {};
  const out: JsonObject = {};
  const fresh = ctx.fresh;
  let clean = true;
  let size = 0;
  for (const k of lk) {
    const type = fieldType(t, k, ctx).type;
    const rv = Object.prototype.hasOwnProperty.call(rm, k) ? rm[k] : MISSING;
    let v: unknown;
    if (type.kind === 'scalar') v = rv !== MISSING ? rv : lm[k];
    else {
      path.push({ field: k });
      v = walkMerge(lm[k], rv, type, path, ctx);
      path.pop();
    }
    if (v === MISSING) continue;
    size++;
    if (fresh && clean && !keepsClean(v, fresh)) clean = false;
    putKey(out, k, v);
  }
  for (const k of rk) {
    if (Object.prototype.hasOwnProperty.call(lm, k)) continue;
    const type = fieldType(t, k, ctx).type;
    let v: unknown;
    if (type.kind === 'scalar') v = rm[k];
    else {
      path.push({ field: k });
      v = walkMerge(MISSING, rm[k], type, path, ctx);
      path.pop();
    }
    if (v === MISSING) continue;
    size++;
    if (fresh && clean && !keepsClean(v, fresh)) clean = false;
    putKey(out, k, v);
  }
  fresh?.set(out, clean);
  return size > 0 ? out : MISSING;
}

/** walkMerge of a list: atomic lists as leaves, associative ones item by item in upstream's order. */
function mergeList(l: unknown, r: unknown, node: Extract<TypeNode, { kind: 'list' }>, path: PathElement[], ctx: Ctx): unknown {
  if (node.relationship === 'atomic' || (isEmptyList(l) && isEmptyList(r))) return r !== MISSING ? r : l;
  if (!Array.isArray(l) && !Array.isArray(r)) return r !== MISSING ? r : l;
  const ll = Array.isArray(l) ? l : [];
  const rl = Array.isArray(r) ? r : [];
  const lIdx = indexList(node, ll, path, ctx);
  const rIdx = indexList(node, rl, path, ctx);
  const et = typeOf(elemSchema(node, ctx), ctx.defs);
  const out: unknown[] = [];
  const fresh = ctx.fresh;
  let clean = true;
  const mergeItem = (k: string, pe: PathElement): void => {
    path.push(pe);
    const v = walkMerge(lIdx.get(k)?.item, rIdx.get(k)?.item, et, path, ctx);
    path.pop();
    if (v === MISSING) return;
    // null items stay in lists (only map entries are dropped)
    if (fresh && clean && v !== null && !keepsClean(v, fresh)) clean = false;
    out.push(v);
  };
  // upstream's ordering: RHS order, with LHS-only items kept where they were
  const lOrder = [...lIdx.keys()];
  const rOrder = [...rIdx.keys()];
  const shared = rOrder.filter((k) => lIdx.has(k));
  let sharedAt = 0; // a cursor, not shift(): shift is O(n) per call on a large array
  const nextShared = (): string | undefined => (sharedAt < shared.length ? shared[sharedAt++] : undefined);
  let next: string | undefined = nextShared();
  let li = 0;
  let ri = 0;
  while (li < lOrder.length || ri < rOrder.length) {
    if (li < lOrder.length && ri < rOrder.length) {
      const lk = lOrder[li];
      if (lk === rOrder[ri]) {
        mergeItem(lk, lIdx.get(lk)!.pe);
        li++;
        ri++;
        next = nextShared();
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
      if (next !== undefined && next === rk) next = nextShared();
    }
  }
  fresh?.set(out, clean);
  return out.length > 0 ? out : MISSING;
}

/**
 * walkCompare of untyped (preserved) data, in the same order with an explicit stack: two maps
 * compare key by key (a map on one side only is added or removed after its keys), anything else
 * as a leaf. Preserved fields may nest 10,000 deep.
 */
function compareUntyped(l: unknown, r: unknown, here: PathCursor): void {
  type Step = { l: unknown; r: unknown; here: PathCursor; after: boolean };
  const steps: Step[] = [{ l, r, here, after: false }];
  for (let s = steps.pop(); s; s = steps.pop()) {
    if (s.after) {
      if (s.l === MISSING) s.here.insert(ADDED);
      else if (s.r === MISSING) s.here.insert(REMOVED);
      continue;
    }
    const lMap = s.l !== MISSING && isObject(s.l);
    const rMap = s.r !== MISSING && isObject(s.r);
    // a map against a non-map is a leaf change, as effective() types them
    const lk = lMap && (rMap || s.r === MISSING) ? Object.keys(s.l as JsonObject) : [];
    const rk = rMap && (lMap || s.l === MISSING) ? Object.keys(s.r as JsonObject) : [];
    if (lk.length === 0 && rk.length === 0) {
      compareLeaf(s.l, s.r, s.here);
      continue;
    }
    const lm = lMap ? (s.l as JsonObject) : {};
    const rm = rMap ? (s.r as JsonObject) : {};
    const children: Step[] = [];
    for (const k of lk) children.push({ l: lm[k], r: Object.prototype.hasOwnProperty.call(rm, k) ? rm[k] : MISSING, here: s.here.at({ field: k }), after: false });
    for (const k of rk) if (!Object.prototype.hasOwnProperty.call(lm, k)) children.push({ l: MISSING, r: rm[k], here: s.here.at({ field: k }), after: false });
    steps.push({ ...s, after: true });
    for (let i = children.length - 1; i >= 0; i--) steps.push(children[i]);
  }
}

/**
 * walkMerge of untyped (preserved) data, with an explicit stack: two maps merge key by key (LHS
 * keys first, then the new RHS keys), anything else keeps the RHS. Preserved fields may nest
 * 10,000 deep, deeper than a recursive walk's frames fit in the stack.
 */
function mergeUntyped(l: unknown, r: unknown, fresh: FreshContainers | undefined): unknown {
  const mergeable = (a: unknown, b: unknown): a is JsonObject => a !== b && isObject(a) && isObject(b) && (Object.keys(a).length > 0 || Object.keys(b).length > 0);
  if (l === MISSING || r === MISSING || !mergeable(l, r)) return r !== MISSING ? r : l;
  const root: JsonObject = {};
  // made here, but holding shared values: never clean
  fresh?.set(root, false);
  const pending: [JsonObject, JsonObject, JsonObject][] = [[l, r as JsonObject, root]];
  const put = (out: JsonObject, k: string, v: unknown): void => {
    if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  };
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [lm, rm, out] = next;
    for (const k of Object.keys(lm)) {
      if (!Object.prototype.hasOwnProperty.call(rm, k)) {
        put(out, k, lm[k]);
      } else if (mergeable(lm[k], rm[k])) {
        const child: JsonObject = {};
        fresh?.set(child, false);
        put(out, k, child);
        pending.push([lm[k] as JsonObject, rm[k] as JsonObject, child]);
      } else put(out, k, rm[k]);
    }
    for (const k of Object.keys(rm)) if (!Object.prototype.hasOwnProperty.call(lm, k)) put(out, k, rm[k]);
  }
  return root;
}

// ------------------------------------------------------------------------------------------------
// RemoveItems: drops every member of `set` (with everything under it) from the value.

export function removeItems(value: unknown, set: FieldSet, schema: Schema | undefined, defs: Definitions): unknown {
  return walkRemove(value, set, typeOf(schema, defs), [], { defs });
}

/** Recurses once per nesting level; `path` is a stack for errors. */
function walkRemove(v: unknown, set: FieldSet, t: TypeNode, path: PathElement[], ctx: Ctx): unknown {
  const e = effective(t, v);
  if (e === 'leaf' || (e !== 'granularUntyped' && e.kind === 'scalar')) return v;
  if (e !== 'granularUntyped' && e.kind === 'list') {
    if (e.relationship === 'atomic' || !Array.isArray(v)) return v;
    const et = typeOf(elemSchema(e, ctx), ctx.defs);
    const out: unknown[] = [];
    v.forEach((item, i) => {
      const pe = listItemPathElement(e, item, ctx, path, i);
      if (set.hasMember(pe)) return;
      const sub = set.child(pe);
      if (!sub || sub.empty()) {
        out.push(item);
        return;
      }
      path.push(pe);
      out.push(walkRemove(item, sub, et, path, ctx));
      path.pop();
    });
    return out;
  }
  if (atomicMap(e) || !isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, val] of Object.entries(v)) {
    const pe: PathElement = { field: k };
    if (set.hasMember(pe)) continue;
    const sub = set.child(pe);
    let nv = val;
    if (sub && !sub.empty()) {
      path.push(pe);
      nv = walkRemove(val, sub, fieldType(e, k, ctx).type, path, ctx);
      path.pop();
    }
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
