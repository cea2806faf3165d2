// Strategic merge patch (application/strategic-merge-patch+json), the server half of upstream's
// apimachinery `strategicpatch` (StrategicMergeMapPatch with MergeParallelList and
// IgnoreUnmatchedNulls), driven by the spec's `x-cluster-patch-strategy` /
// `x-cluster-patch-merge-key` instead of Go struct tags. Pure: the inputs are not modified.
//
// - maps merge key by key; `null` deletes a key;
// - lists are replaced, unless their schema says `x-cluster-patch-strategy: merge`: lists of
//   objects then merge element by element on `x-cluster-patch-merge-key`, lists of scalars merge
//   as sets (union, deduplicated);
// - directives: `$patch: replace|merge|delete` (in maps and in merge-list elements), `$retainKeys`,
//   `$deleteFromPrimitiveList/<list>`, `$setElementOrder/<list>`.
// Errors are StrategicMergePatchError with upstream's texts and HTTP classification.

import type { Schema } from '../schema/types.ts';
import {
  ErrBadJSONDoc,
  ErrBadPatchFormatForPrimitiveList,
  ErrBadPatchFormatForRetainKeys,
  ErrBadPatchFormatForSetElementOrderList,
  ErrNoListOfLists,
  StrategicMergePatchError,
} from './errors.ts';
import { deduplicateScalars } from './dedupe-scalars.ts';
import { goSliceStable } from './go-sort.ts';
import { deepCopy } from '../json/clone.ts';
import { isObject, type JsonObject } from '../json/is-object.ts';
import { childSchema, itemSchema, patchMergeKey, patchStrategies, resolveSchema, type Definitions } from './schema-nav.ts';

const directiveMarker = '$patch';
const deleteDirective = 'delete';
const replaceDirective = 'replace';
const mergeDirective = 'merge';
const retainKeysStrategy = 'retainKeys';
const deleteFromPrimitiveListDirectivePrefix = '$deleteFromPrimitiveList';
const retainKeysDirective = '$' + retainKeysStrategy;
const setElementOrderDirectivePrefix = '$setElementOrder';

/**
 * Applies a strategic merge patch to `original` (a whole object) and returns the patched object.
 * `schema` is the root schema of the kind (e.g. definitions.ConfigMap); `definitions` resolves its refs.
 * Throws StrategicMergePatchError.
 */
export function applyStrategicMergePatch(original: unknown, patch: unknown, schema: Schema | undefined, definitions: Definitions): JsonObject {
  let orig: JsonObject;
  if (original === undefined || original === null) orig = {};
  else if (isObject(original)) orig = deepCopy(original);
  else throw new StrategicMergePatchError(ErrBadJSONDoc, 'BadRequest');
  let p: JsonObject;
  if (patch === undefined || patch === null) p = {};
  else if (isObject(patch)) p = deepCopy(patch);
  else throw new StrategicMergePatchError(`json: cannot unmarshal ${jsonKind(patch)} into Go value of type map[string]interface {}`, 'BadRequest');
  const ctx: Ctx = { defs: definitions };
  return mergeMap(orig, p, resolveSchema(schema, definitions), ctx);
}

interface Ctx {
  defs: Definitions;
}

type GoKind = 'map' | 'slice' | 'string' | 'number' | 'bool' | 'nil';

function goKind(v: unknown): GoKind {
  if (v === null || v === undefined) return 'nil';
  if (Array.isArray(v)) return 'slice';
  if (typeof v === 'object') return 'map';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  return 'number';
}

function jsonKind(v: unknown): string {
  const k = goKind(v);
  return k === 'map' ? 'object' : k === 'slice' ? 'array' : k;
}

/** reflect.TypeOf(v).String() of a decoded JSON value. */
function goTypeName(v: unknown): string {
  switch (goKind(v)) {
    case 'map':
      return 'map[string]interface {}';
    case 'slice':
      return '[]interface {}';
    case 'string':
      return 'string';
    case 'bool':
      return 'bool';
    case 'number':
      return Number.isInteger(v) ? 'int64' : 'float64';
    default:
      return '%!s(<nil>)';
  }
}

/** Go's `%v` of a decoded JSON value (maps print with sorted keys). */
export function goFormat(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[' + v.map(goFormat).join(' ') + ']';
  if (isObject(v)) {
    const keys = Object.keys(v).sort();
    return 'map[' + keys.map((k) => `${k}:${goFormat(v[k])}`).join(' ') + ']';
  }
  return String(v);
}

function internal(msg: string): StrategicMergePatchError {
  return new StrategicMergePatchError(msg, 'Internal');
}
function errBadArgType(expected: string, actual: unknown): StrategicMergePatchError {
  return internal(`expected a ${expected}, but received a ${goTypeName(actual)}`);
}
function errNoMergeKey(m: JsonObject, k: string): StrategicMergePatchError {
  return internal(`map: ${goFormat(m)} does not contain declared merge key: ${k}`);
}
function errBadPatchType(t: unknown, m: JsonObject): StrategicMergePatchError {
  return internal(`unknown patch type: ${typeof t === 'string' ? t : `%!s(${goTypeName(t)}=${goFormat(t)})`} in map: ${goFormat(m)}`);
}

const has = (o: JsonObject, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

function setKey(o: JsonObject, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

/** Returns [retainKeys, strategy] as upstream's extractRetainKeysPatchStrategy. */
function extractRetainKeysPatchStrategy(strategies: string[]): [boolean, string] {
  switch (strategies.length) {
    case 0:
      return [false, ''];
    case 1:
      return strategies[0] === retainKeysStrategy ? [true, ''] : [false, strategies[0]];
    case 2:
      if (strategies[0] === retainKeysStrategy) return [true, strategies[1]];
      if (strategies[1] === retainKeysStrategy) return [true, strategies[0]];
      throw internal(`unexpected patch strategy: [${strategies.join(' ')}]`);
    default:
      throw internal(`unexpected patch strategy: [${strategies.join(' ')}]`);
  }
}

interface FieldMeta {
  /** Schema of the field's value (resolved). */
  schema: Schema | undefined;
  strategy: string;
  mergeKey: string;
}

function lookupField(parent: Schema | undefined, key: string, ctx: Ctx): FieldMeta {
  const p = resolveSchema(parent, ctx.defs);
  const raw = p?.properties?.[key] ?? (isObject(p?.additionalProperties) ? (p?.additionalProperties as Schema) : undefined);
  const { schema } = childSchema(p, key, ctx.defs);
  // extensions may sit beside a $ref on the property or on the resolved node
  const strategies = patchStrategies(raw).length ? patchStrategies(raw) : patchStrategies(schema);
  const [, strategy] = extractRetainKeysPatchStrategy(strategies);
  return { schema, strategy, mergeKey: patchMergeKey(raw) || patchMergeKey(schema) };
}

function mergeMap(original: JsonObject, patch: JsonObject, schema: Schema | undefined, ctx: Ctx): JsonObject {
  if (has(patch, directiveMarker)) return handleDirectiveInMergeMap(patch[directiveMarker], patch);

  applyRetainKeysDirective(original, patch);
  mergePatchIntoOriginal(original, patch, schema, ctx);

  for (const rawKey of Object.keys(patch)) {
    if (!has(patch, rawKey)) continue;
    const patchV = patch[rawKey];
    let k = rawKey;
    let isDeleteList = false;
    if (rawKey.startsWith(deleteFromPrimitiveListDirectivePrefix)) {
      k = extractKey(rawKey, deleteFromPrimitiveListDirectivePrefix);
      isDeleteList = true;
    }

    if (patchV === null) {
      delete original[k];
      continue; // IgnoreUnmatchedNulls
    }

    if (!has(original, k)) {
      if (!isDeleteList) {
        discardNullValuesFromPatch(patchV);
        const [v, keep] = removeDirectives(patchV);
        if (keep) setKey(original, k, v);
      }
      continue;
    }

    const origV = original[k];
    if (goKind(origV) !== goKind(patchV)) {
      if (!isDeleteList) {
        discardNullValuesFromPatch(patchV);
        const [v, keep] = removeDirectives(patchV);
        if (keep) setKey(original, k, v);
        else delete original[k];
      }
      continue;
    }

    if (isObject(origV) && isObject(patchV)) {
      const meta = lookupField(schema, k, ctx);
      setKey(original, k, meta.strategy !== replaceDirective ? mergeMap(origV, patchV, meta.schema, ctx) : patchV);
    } else if (Array.isArray(origV) && Array.isArray(patchV)) {
      const meta = lookupField(schema, k, ctx);
      setKey(original, k, mergeSliceHandler(origV, patchV, meta, isDeleteList, ctx));
    } else {
      const [v, keep] = removeDirectives(patchV);
      if (keep) setKey(original, k, v);
      else delete original[k];
    }
  }
  return original;
}

function handleDirectiveInMergeMap(directive: unknown, patch: JsonObject): JsonObject {
  if (directive === replaceDirective) {
    delete patch[directiveMarker];
    return patch;
  }
  if (directive === deleteDirective) return {};
  throw errBadPatchType(directive, patch);
}

function extractKey(s: string, prefix: string): string {
  const i = s.indexOf('/');
  if (i < 0 || s.slice(0, i) !== prefix) {
    if (prefix === deleteFromPrimitiveListDirectivePrefix) throw new StrategicMergePatchError(ErrBadPatchFormatForPrimitiveList, 'BadRequest');
    if (prefix === setElementOrderDirectivePrefix) throw new StrategicMergePatchError(ErrBadPatchFormatForSetElementOrderList, 'BadRequest');
    throw internal(`fail to find unknown prefix "${prefix}" in ${s}`);
  }
  return s.slice(i + 1);
}

function applyRetainKeysDirective(original: JsonObject, patch: JsonObject): void {
  if (!has(patch, retainKeysDirective)) return;
  const retain = patch[retainKeysDirective];
  delete patch[retainKeysDirective];
  if (!Array.isArray(retain)) throw new StrategicMergePatchError(ErrBadPatchFormatForRetainKeys, 'BadRequest');
  const keep = new Set<unknown>(retain);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(deleteFromPrimitiveListDirectivePrefix) || k.startsWith(setElementOrderDirectivePrefix)) continue;
    if (!keep.has(k)) throw new StrategicMergePatchError(ErrBadPatchFormatForRetainKeys, 'BadRequest');
  }
  for (const k of Object.keys(original)) if (!keep.has(k)) delete original[k];
}

function mergePatchIntoOriginal(original: JsonObject, patch: JsonObject, schema: Schema | undefined, ctx: Ctx): void {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(setElementOrderDirectivePrefix)) continue;
    const setOrder = patch[key];
    delete patch[key];
    if (!Array.isArray(setOrder)) throw errBadArgType('[]interface {}', setOrder);
    const originalKey = extractKey(key, setElementOrderDirectivePrefix);
    const foundOriginal = has(original, originalKey);
    const foundPatch = has(patch, originalKey);
    let originalFieldValue: unknown[] = [];
    let patchFieldValue: unknown[] = [];
    if (foundOriginal) {
      const v = original[originalKey];
      if (!Array.isArray(v)) throw errBadArgType('[]interface {}', v);
      originalFieldValue = v;
    }
    if (foundPatch) {
      const v = patch[originalKey];
      if (!Array.isArray(v)) throw errBadArgType('[]interface {}', v);
      patchFieldValue = v;
    }
    const meta = lookupField(schema, originalKey, ctx);
    validatePatchWithSetOrderList(patchFieldValue, setOrder, meta.mergeKey);

    let merged: unknown[];
    if (foundOriginal && !foundPatch) merged = originalFieldValue;
    else if (!foundOriginal && foundPatch) merged = removeDirectives(patchFieldValue)[0] as unknown[];
    else if (foundOriginal && foundPatch) merged = mergeSliceHandler(originalFieldValue, patchFieldValue, meta, false, ctx);
    else continue;

    let patchItems: unknown[];
    let serverOnly: unknown[];
    if (meta.mergeKey === '') [patchItems, serverOnly] = partitionPrimitivesByPresentInList(merged, setOrder);
    else [patchItems, serverOnly] = partitionMapsByPresentInList(merged, setOrder, meta.mergeKey);

    const kind = sliceElementType(originalFieldValue, patchFieldValue);
    setKey(original, originalKey, normalizeElementOrder(patchItems, serverOnly, setOrder, originalFieldValue, meta.mergeKey, kind));
    delete patch[originalKey];
  }
}

function validatePatchWithSetOrderList(patchList: unknown[], setOrderList: unknown[], mergeKey: string): void {
  if (setOrderList.length === 0 || patchList.length === 0) return;
  const nonDelete = mergeKey ? extractToDeleteItems(patchList)[0] : patchList;
  let patchIndex = 0;
  let setOrderIndex = 0;
  while (patchIndex < nonDelete.length && setOrderIndex < setOrderList.length) {
    if (containsDirectiveMarker(nonDelete[patchIndex])) {
      patchIndex++;
      continue;
    }
    if (mergeKeyValueEqual(nonDelete[patchIndex], setOrderList[setOrderIndex], mergeKey)) patchIndex++;
    setOrderIndex++;
  }
  if (patchIndex < nonDelete.length && setOrderIndex >= setOrderList.length) {
    throw internal(`the order in patch list:\n${goFormat(patchList)}\n doesn't match ${setElementOrderDirectivePrefix} list:\n${goFormat(setOrderList)}`);
  }
}

function containsDirectiveMarker(item: unknown): boolean {
  return isObject(item) && has(item, directiveMarker);
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (!mergeKey) return left === right;
  if (!isObject(left)) throw errBadArgType('map[string]interface {}', left);
  if (!isObject(right)) throw errBadArgType('map[string]interface {}', right);
  if (!has(left, mergeKey)) throw errNoMergeKey(left, mergeKey);
  if (!has(right, mergeKey)) throw errNoMergeKey(right, mergeKey);
  return left[mergeKey] === right[mergeKey];
}

function mergeSliceHandler(original: unknown[], patch: unknown[], meta: FieldMeta, isDeleteList: boolean, ctx: Ctx): unknown[] {
  if (meta.strategy === mergeDirective) return mergeSlice(original, patch, itemSchema(meta.schema, ctx.defs), meta.mergeKey, isDeleteList, ctx);
  return patch;
}

type ElemKind = 'map' | 'scalar';

function sliceElementType(...slices: unknown[][]): ElemKind {
  let prev: GoKind | undefined;
  for (const s of slices) {
    for (const v of s) {
      const cur = goKind(v);
      if (prev === undefined) {
        prev = cur;
        if (prev === 'slice') throw new StrategicMergePatchError(ErrNoListOfLists, 'Invalid');
      } else if (prev !== cur) {
        throw internal(`list element types are not identical: ${goFormat(slices)}`);
      }
    }
  }
  if (prev === undefined) throw internal('no elements in any of the given slices');
  return prev === 'map' ? 'map' : 'scalar';
}

function mergeSlice(original: unknown[], patch: unknown[], elemSchema: Schema | undefined, mergeKey: string, isDeleteList: boolean, ctx: Ctx): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementType(original, patch);
  let merged: unknown[];
  let serverOrder = original;
  let patchOrder = patch;
  if (kind !== 'map') {
    if (isDeleteList) return deleteFromSlice(original, patch);
    merged = deduplicateScalars([...original, ...patch]);
  } else {
    if (mergeKey === '') {
      const t = resolveSchema(elemSchema, ctx.defs)?.type;
      throw internal(`cannot merge lists without merge key for type ${t === 'object' || t === undefined ? 'struct' : t}`);
    }
    const [orig2, patch2] = mergeSliceWithSpecialElements(original, patch, mergeKey);
    serverOrder = orig2;
    patchOrder = patch2;
    merged = mergeSliceWithoutSpecialElements([...orig2], patch2, mergeKey, elemSchema, ctx);
  }
  let patchItems: unknown[];
  let serverOnly: unknown[];
  if (mergeKey === '') [patchItems, serverOnly] = partitionPrimitivesByPresentInList(merged, patchOrder);
  else [patchItems, serverOnly] = partitionMapsByPresentInList(merged, patchOrder, mergeKey);
  return normalizeElementOrder(patchItems, serverOnly, patchOrder, serverOrder, mergeKey, kind);
}

function mergeSliceWithSpecialElements(original: unknown[], patch: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const without: unknown[] = [];
  let replace = false;
  // upstream deletes the matches of each `$patch: delete` in turn; one pass over a set is the same
  const toDelete = new Set<unknown>();
  for (const v of patch) {
    const m = v as JsonObject;
    if (!has(m, directiveMarker)) {
      without.push(v);
      continue;
    }
    const t = m[directiveMarker];
    if (t === deleteDirective) {
      if (!has(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
      toDelete.add(m[mergeKey]);
    } else if (t === replaceDirective) {
      replace = true;
    } else if (t === mergeDirective) {
      throw internal('merging lists cannot yet be specified in the patch');
    } else {
      throw errBadPatchType(t, m);
    }
  }
  if (replace) return [without, []];
  return [toDelete.size === 0 ? original : deleteMatchingEntries(original, mergeKey, toDelete), without];
}

/** The items without those whose merge key holds one of `values` (every item is a map here: sliceElementType). */
function deleteMatchingEntries(original: unknown[], mergeKey: string, values: Set<unknown>): unknown[] {
  return original.filter((v) => !(isObject(v) && has(v, mergeKey) && values.has(v[mergeKey])));
}

function mergeSliceWithoutSpecialElements(original: unknown[], patch: unknown[], mergeKey: string, elemSchema: Schema | undefined, ctx: Ctx): unknown[] {
  const index = new MergeKeyIndex(original, mergeKey);
  for (const v of patch) {
    const m = v as JsonObject;
    if (!has(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
    const idx = index.find(m[mergeKey]);
    if (idx >= 0) {
      // the merged item keeps its merge key or loses it (a patch `null`); find checks items again
      original[idx] = mergeMap(original[idx] as JsonObject, m, elemSchema, ctx);
    } else {
      original.push(v);
      index.appended();
    }
  }
  return original;
}

function deleteFromSlice(current: unknown[], toDelete: unknown[]): unknown[] {
  const del = new Set<unknown>(toDelete);
  return current.filter((v) => !del.has(v));
}

/**
 * Upstream's findMapInSliceBasedOnKeyValue (the first map item whose merge key `===` a value; an
 * error at the first non-map item scanned before a match) over an index of the list, so that n
 * lookups cost O(n) instead of O(n²). Follows the list through in-place merges and appends.
 */
class MergeKeyIndex {
  /**
   * Merge-key value -> the indexes of the items holding it, ascending (first match first), from
   * `head` on: an item that lost its key in a merge never matches again and is skipped for good.
   */
  private readonly byValue = new Map<unknown, { at: number[]; head: number }>();
  /** Index of the first non-map item (a lookup that misses before it fails there). */
  private firstNonMap = -1;
  private indexed = 0;

  constructor(
    private readonly list: unknown[],
    private readonly key: string,
  ) {
    this.appended();
  }

  /** Indexes items pushed since the last call (their indexes exceed every indexed one). */
  appended(): void {
    for (; this.indexed < this.list.length; this.indexed++) {
      if (this.firstNonMap >= 0) continue; // nothing after the first non-map is ever reached
      const v = this.list[this.indexed];
      if (!isObject(v)) this.firstNonMap = this.indexed;
      else if (has(v, this.key)) {
        const entry = this.byValue.get(v[this.key]);
        if (entry === undefined) this.byValue.set(v[this.key], { at: [this.indexed], head: 0 });
        else entry.at.push(this.indexed);
      }
    }
  }

  /** The index of the first map whose merge key is `value`, or -1; throws as upstream at a non-map item. */
  find(value: unknown): number {
    const entry = this.byValue.get(value);
    if (entry !== undefined) {
      for (; entry.head < entry.at.length; entry.head++) {
        const i = entry.at[entry.head];
        const v = this.list[i];
        if (isObject(v) && has(v, this.key) && v[this.key] === value) return i;
      }
    }
    if (this.firstNonMap >= 0) throw internal(`value for key ${this.firstNonMap} is not a map.`);
    return -1;
  }
}

function partitionPrimitivesByPresentInList(original: unknown[], partitionBy: unknown[]): [unknown[], unknown[]] {
  const inPatch = new Set<unknown>(partitionBy);
  const patch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const v of original) (inPatch.has(v) ? patch : serverOnly).push(v);
  return [patch, serverOnly];
}

function partitionMapsByPresentInList(original: unknown[], partitionBy: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const patch: unknown[] = [];
  const serverOnly: unknown[] = [];
  const index = new MergeKeyIndex(partitionBy, mergeKey);
  for (const v of original) {
    if (!isObject(v)) throw errBadArgType('map[string]interface {}', v);
    if (!has(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
    (index.find(v[mergeKey]) >= 0 ? patch : serverOnly).push(v);
  }
  return [patch, serverOnly];
}

function extractToDeleteItems(l: unknown[]): [unknown[], unknown[]] {
  const nonDelete: unknown[] = [];
  const toDelete: unknown[] = [];
  for (const v of l) {
    if (!isObject(v)) throw errBadArgType('map[string]interface {}', v);
    if (has(v, directiveMarker) && v[directiveMarker] === deleteDirective) toDelete.push(v);
    else nonDelete.push(v);
  }
  return [nonDelete, toDelete];
}

const MISSING = Symbol('missing');

/**
 * Upstream's index(list, item) (the first position whose merge key, or scalar, `===` the item's)
 * for every item at once: a Map from that value to its first position. Map keys compare as `===`
 * does for every JSON value (SameValueZero; JSON has no NaN).
 */
class OrderIndex {
  private readonly first = new Map<unknown, number>();

  constructor(
    list: unknown[],
    private readonly mergeKey: string,
    private readonly kind: ElemKind,
  ) {
    for (let i = 0; i < list.length; i++) {
      const k = this.valueOf(list[i]);
      if (!this.first.has(k)) this.first.set(k, i);
    }
  }

  private valueOf(item: unknown): unknown {
    if (this.kind !== 'map') return item;
    return isObject(item) && has(item, this.mergeKey) ? item[this.mergeKey] : MISSING;
  }

  indexOf(item: unknown): number {
    return this.first.get(this.valueOf(item)) ?? -1;
  }
}

interface Ranked {
  item: unknown;
  /** Position in the order list, -1 when absent. */
  rank: number;
}

/** Upstream's comparator: by position when both are in the order list, else "less". */
function lessByRank(a: Ranked, b: Ranked): boolean {
  return a.rank >= 0 && b.rank >= 0 ? a.rank < b.rank : true;
}

function normalizeSliceOrder(toSort: unknown[], order: unknown[], mergeKey: string, kind: ElemKind): unknown[] {
  let items = [...toSort];
  let toDelete: unknown[] = [];
  if (kind === 'map') {
    for (const list of [items, order]) {
      for (const item of list) {
        if (!isObject(item)) throw errBadArgType('map[string]interface {}', item);
        if (!has(item, mergeKey)) throw errNoMergeKey(item, mergeKey);
      }
    }
    [items, toDelete] = extractToDeleteItems(items);
  }
  // sort.SliceStable with upstream's comparator (not a strict order when an item is missing from
  // `order`), each item's position in `order` looked up once
  const index = new OrderIndex(order, mergeKey, kind);
  const ranked = items.map((item): Ranked => ({ item, rank: index.indexOf(item) }));
  goSliceStable(ranked, lessByRank);
  const out = ranked.map((r) => r.item);
  for (const d of toDelete) out.push(d);
  return out;
}

function normalizeElementOrder(patch: unknown[], serverOnly: unknown[], patchOrder: unknown[], serverOrder: unknown[], mergeKey: string, kind: ElemKind): unknown[] {
  const p = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const s = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(s, p, serverOrder, mergeKey, kind);
}

function mergeSortedSlice(left: unknown[], right: unknown[], serverOrder: unknown[], mergeKey: string, kind: ElemKind): unknown[] {
  const out: unknown[] = [];
  const index = new OrderIndex(serverOrder, mergeKey, kind);
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = index.indexOf(left[i]);
      const ri = index.indexOf(right[j]);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/** Removes `$patch` directives: a map carrying one is dropped altogether (upstream removeDirectives). */
function removeDirectives(obj: unknown): [unknown, boolean] {
  if (obj === null || obj === undefined) return [obj, true];
  if (isObject(obj)) {
    if (has(obj, directiveMarker)) return [undefined, false];
    for (const k of Object.keys(obj)) {
      const [v, keep] = removeDirectives(obj[k]);
      if (keep) obj[k] = v;
      else delete obj[k];
    }
    return [obj, true];
  }
  if (Array.isArray(obj)) {
    const res: unknown[] = [];
    for (const v of obj) {
      const [nv, keep] = removeDirectives(v);
      if (keep) res.push(nv);
    }
    return [res, true];
  }
  return [obj, true];
}

function discardNullValuesFromPatch(v: unknown): void {
  if (isObject(v)) {
    for (const k of Object.keys(v)) {
      if (v[k] === null) delete v[k];
      else discardNullValuesFromPatch(v[k]);
    }
  } else if (Array.isArray(v)) {
    for (const x of v) discardNullValuesFromPatch(x);
  }
}
