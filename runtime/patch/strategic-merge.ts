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
import { childSchema, deepCopy, isObject, itemSchema, patchMergeKey, patchStrategies, resolveSchema, type Definitions, type JsonObject } from './schema-nav.ts';

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
  let orig = original;
  for (const v of patch) {
    const m = v as JsonObject;
    if (!has(m, directiveMarker)) {
      without.push(v);
      continue;
    }
    const t = m[directiveMarker];
    if (t === deleteDirective) {
      if (!has(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
      orig = deleteMatchingEntries(orig, mergeKey, m[mergeKey]);
    } else if (t === replaceDirective) {
      replace = true;
    } else if (t === mergeDirective) {
      throw internal('merging lists cannot yet be specified in the patch');
    } else {
      throw errBadPatchType(t, m);
    }
  }
  if (replace) return [without, []];
  return [orig, without];
}

function deleteMatchingEntries(original: unknown[], mergeKey: string, value: unknown): unknown[] {
  const out = [...original];
  for (;;) {
    const [, idx, found] = findMapInSliceBasedOnKeyValue(out, mergeKey, value);
    if (!found) break;
    out.splice(idx, 1);
  }
  return out;
}

function mergeSliceWithoutSpecialElements(original: unknown[], patch: unknown[], mergeKey: string, elemSchema: Schema | undefined, ctx: Ctx): unknown[] {
  for (const v of patch) {
    const m = v as JsonObject;
    if (!has(m, mergeKey)) throw errNoMergeKey(m, mergeKey);
    const [origMap, idx, found] = findMapInSliceBasedOnKeyValue(original, mergeKey, m[mergeKey]);
    if (found && origMap) original[idx] = mergeMap(origMap, m, elemSchema, ctx);
    else original.push(v);
  }
  return original;
}

function deleteFromSlice(current: unknown[], toDelete: unknown[]): unknown[] {
  const del = new Set<unknown>(toDelete);
  return current.filter((v) => !del.has(v));
}

function findMapInSliceBasedOnKeyValue(list: unknown[], key: string, value: unknown): [JsonObject | undefined, number, boolean] {
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    if (!isObject(v)) throw internal(`value for key ${i} is not a map.`);
    if (has(v, key) && v[key] === value) return [v, i, true];
  }
  return [undefined, 0, false];
}

function deduplicateScalars(s: unknown[]): unknown[] {
  // upstream's in-place algorithm (order only matters before normalizeElementOrder)
  let length = s.length - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (s[i] === s[j]) {
        s[j] = s[length];
        s = s.slice(0, length);
        length--;
        j--;
      }
    }
  }
  return s;
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
  for (const v of original) {
    if (!isObject(v)) throw errBadArgType('map[string]interface {}', v);
    if (!has(v, mergeKey)) throw errNoMergeKey(v, mergeKey);
    const [, , found] = findMapInSliceBasedOnKeyValue(partitionBy, mergeKey, v[mergeKey]);
    (found ? patch : serverOnly).push(v);
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

function indexOf(l: unknown[], val: unknown, mergeKey: string, kind: ElemKind): number {
  const get = kind === 'map' ? (item: unknown): unknown => (isObject(item) && has(item, mergeKey) ? item[mergeKey] : MISSING) : (item: unknown): unknown => item;
  const want = get(val);
  for (let i = 0; i < l.length; i++) if (get(l[i]) === want) return i;
  return -1;
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
  // sort.SliceStable with upstream's comparator (insertion sort)
  const less = (a: unknown, b: unknown): boolean => {
    const ia = indexOf(order, a, mergeKey, kind);
    if (ia >= 0) {
      const ib = indexOf(order, b, mergeKey, kind);
      if (ib >= 0) return ia < ib;
    }
    return true;
  };
  for (let i = 1; i < items.length; i++) {
    for (let j = i; j > 0 && less(items[j], items[j - 1]); j--) {
      const t = items[j];
      items[j] = items[j - 1];
      items[j - 1] = t;
    }
  }
  return [...items, ...toDelete];
}

function normalizeElementOrder(patch: unknown[], serverOnly: unknown[], patchOrder: unknown[], serverOrder: unknown[], mergeKey: string, kind: ElemKind): unknown[] {
  const p = normalizeSliceOrder(patch, patchOrder, mergeKey, kind);
  const s = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSortedSlice(s, p, serverOrder, mergeKey, kind);
}

function mergeSortedSlice(left: unknown[], right: unknown[], serverOrder: unknown[], mergeKey: string, kind: ElemKind): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexOf(serverOrder, left[i], mergeKey, kind);
      const ri = indexOf(serverOrder, right[j], mergeKey, kind);
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
