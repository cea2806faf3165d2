// metadata.managedFields as upstream's apiserver fieldmanager keeps them: decoding and encoding
// the entries, the field-manager name (User-Agent default, 128-character limit), and the
// bookkeeping of ordinary writes (create / update / non-apply patch: `updateManagedFields`).
// Server-side apply itself is in apply.ts.

import type { FieldError, Schema } from '../schema/types.ts';
import { FieldSet, goJson, type FieldPath } from './fieldpath.ts';
import { isObject, type JsonObject } from '../json/is-object.ts';
import { jsonEqual } from '../json/deep-equal.ts';
import { isMarkedDeep, markDeep } from '../json/stringify.ts';
import type { Definitions } from './schema-nav.ts';
import { addedFieldsV1, compare, createTopType, TypedValueError, type Comparison } from './typed.ts';

export type ManagedFieldsOperation = 'Apply' | 'Update';

/** One metadata.managedFields entry as stored and served (upstream ManagedFieldsEntry). */
export interface ManagedFieldsEntry {
  manager?: string;
  operation?: ManagedFieldsOperation | string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: JsonObject;
  subresource?: string;
}

/** One manager's decoded entry. */
export interface ManagerState {
  manager: string;
  operation: ManagedFieldsOperation;
  apiVersion: string;
  subresource: string;
  time?: string;
  set: FieldSet;
}

/** Decoded managed fields, keyed by manager identifier (see managerIdentifier). */
export type Managed = Map<string, ManagerState>;

export const FIELD_MANAGER_MAX_LENGTH = 128;
export const MAX_SUBRESOURCE_NAME_LENGTH = 256;
/** Update managers kept before the oldest are merged into the `ancient-changes` bucket. */
export const DEFAULT_MAX_UPDATE_MANAGERS = 10;
export const ANCIENT_CHANGES_MANAGER = 'ancient-changes';

/**
 * Upstream's manager identifier (BuildManagerIdentifier): the entry's JSON without fields, type
 * and time, and without apiVersion for appliers (an applier is one manager whatever version it uses).
 */
/** Identifiers by their parts: a write computes one or more per request for the same few managers. */
const identifiers = new Map<string, string>();

export function managerIdentifier(e: { manager: string; operation: ManagedFieldsOperation | string; apiVersion?: string; subresource?: string }): string {
  const cacheKey = `${e.manager}\u0000${e.operation}\u0000${e.apiVersion ?? ''}\u0000${e.subresource ?? ''}`;
  let id = identifiers.get(cacheKey);
  if (id === undefined) {
    id = computeManagerIdentifier(e);
    if (identifiers.size >= 1024) identifiers.clear();
    identifiers.set(cacheKey, id);
  }
  return id;
}

function computeManagerIdentifier(e: { manager: string; operation: ManagedFieldsOperation | string; apiVersion?: string; subresource?: string }): string {
  const o: Record<string, string> = {};
  if (e.manager) o.manager = e.manager;
  if (e.operation) o.operation = e.operation;
  if (e.operation !== 'Apply' && e.apiVersion) o.apiVersion = e.apiVersion;
  if (e.subresource) o.subresource = e.subresource;
  return goJson(o, false); // struct field order, as Go encodes ManagedFieldsEntry
}

/** How conflicts name a manager: `"m"`, `"m" with subresource "status"`, `"m" using v1`. */
export function describeManager(m: { manager: string; operation: string; apiVersion?: string; subresource?: string }): string {
  let s = JSON.stringify(m.manager);
  if (m.subresource) s = `${s} with subresource ${JSON.stringify(m.subresource)}`;
  if (m.operation === 'Update') return `${s} using ${m.apiVersion ?? ''}`;
  return s;
}

/** RFC 3339 UTC with whole seconds, as metav1.Time serializes. */
export function formatTime(now: Date | string): string {
  const d = typeof now === 'string' ? new Date(now) : now;
  return d.toISOString().replace(/\.\d+Z$/, 'Z');
}

function timeSeconds(t: string | undefined): number {
  if (!t) return 0;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/** Decodes entries; throws an Error with upstream's text on a bad entry. */
export function decodeManagedFields(entries: unknown): Managed {
  const managed: Managed = new Map();
  if (entries === undefined || entries === null) return managed;
  if (!Array.isArray(entries)) throw new Error('error decoding managed fields: expected a list');
  for (const raw of entries) {
    if (!isObject(raw)) throw new Error('error decoding managed fields: expected an object');
    const e = raw as ManagedFieldsEntry;
    const operation = e.operation as ManagedFieldsOperation;
    const manager = e.manager ?? '';
    if (e.fieldsType !== 'FieldsV1') throw new Error(`error decoding set: unsupported fields type ${e.fieldsType ?? ''}`);
    let set: FieldSet;
    try {
      set = FieldSet.fromFieldsV1(e.fieldsV1 ?? {});
    } catch (err) {
      throw new Error(`error decoding set: ${(err as Error).message}`);
    }
    const st: ManagerState = { manager, operation, apiVersion: e.apiVersion ?? '', subresource: e.subresource ?? '', set };
    if (e.time) st.time = e.time;
    managed.set(managerIdentifier(st), st);
  }
  return managed;
}

/** Encodes managers to entries in upstream's order (Apply before Update, then time, manager, apiVersion, subresource). */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] {
  const out: ManagedFieldsEntry[] = [];
  for (const m of managed.values()) if (!m.set.empty()) out.push(entryOf(m, m.set.toFieldsV1()));
  if (out.length > 1) out.sort(compareEntries);
  return out;
}

/** The entry of one manager, its fields given in FieldsV1 form (upstream's field order). */
function entryOf(m: Omit<ManagerState, 'set'>, fieldsV1: JsonObject): ManagedFieldsEntry {
  const e: ManagedFieldsEntry = { manager: m.manager, operation: m.operation, apiVersion: m.apiVersion };
  if (m.time) e.time = m.time;
  e.fieldsType = 'FieldsV1';
  e.fieldsV1 = fieldsV1;
  if (m.subresource) e.subresource = m.subresource;
  return e;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Upstream's order of managedFields entries: operation, time (seconds), manager, apiVersion, subresource. */
function compareEntries(p: ManagedFieldsEntry, q: ManagedFieldsEntry): number {
  return (
    compareText(p.operation ?? '', q.operation ?? '') ||
    timeSeconds(p.time) - timeSeconds(q.time) ||
    compareText(p.manager ?? '', q.manager ?? '') ||
    compareText(p.apiVersion ?? '', q.apiVersion ?? '') ||
    compareText(p.subresource ?? '', q.subresource ?? '')
  );
}

/** The fields no manager owns: type meta and the server-set metadata (a member only: its children stay). */
export const STRIP_SET = FieldSet.fromPaths(
  [
    ['apiVersion'],
    ['kind'],
    ['metadata'],
    ['metadata', 'name'],
    ['metadata', 'namespace'],
    ['metadata', 'creationTimestamp'],
    ['metadata', 'selfLink'],
    ['metadata', 'uid'],
    ['metadata', 'clusterName'],
    ['metadata', 'generation'],
    ['metadata', 'managedFields'],
    ['metadata', 'resourceVersion'],
  ].map((p) => p.map((field) => ({ field }))),
);

export function stripMeta(set: FieldSet): FieldSet {
  return set.difference(STRIP_SET);
}

/** Field paths given as field-name lists (`['status']`) become a set that is excluded recursively. */
export function ignoredSet(paths: readonly (readonly string[])[] | undefined): FieldSet {
  const s = new FieldSet();
  for (const p of paths ?? []) s.insert(p.map((field) => ({ field })) as FieldPath);
  return s;
}

export function filterComparison(c: Comparison, ignored: FieldSet): Comparison {
  if (ignored.empty()) return c;
  return { added: c.added.recursiveDifference(ignored), modified: c.modified.recursiveDifference(ignored), removed: c.removed.recursiveDifference(ignored) };
}

/** capManagersManager: at most `max` Update entries; the oldest merge into `ancient-changes` per apiVersion. */
export function capUpdateManagers(managed: Managed, max = DEFAULT_MAX_UPDATE_MANAGERS): void {
  const updaters: string[] = [];
  for (const [id, m] of managed) if (m.operation !== 'Apply') updaters.push(id);
  if (updaters.length <= max) return;
  updaters.sort((a, b) => {
    const ta = timeSeconds(managed.get(a)!.time);
    const tb = timeSeconds(managed.get(b)!.time);
    if (ta !== tb) return ta - tb;
    return a < b ? -1 : a > b ? 1 : 0;
  });
  const firstByVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const id = updaters[i];
    const m = managed.get(id)!;
    const version = m.apiVersion;
    const bucketState = { manager: ANCIENT_CHANGES_MANAGER, operation: 'Update' as const, apiVersion: version, subresource: '' };
    const bucket = managerIdentifier(bucketState);
    const first = firstByVersion.get(version);
    if (first !== undefined) {
      if (!managed.has(bucket)) {
        const f = managed.get(first)!;
        managed.delete(first);
        managed.set(bucket, { ...bucketState, time: f.time, set: f.set });
      }
      const b = managed.get(bucket)!;
      managed.set(bucket, { ...bucketState, time: m.time, set: m.set.union(b.set) });
      managed.delete(id);
      length--;
    } else {
      firstByVersion.set(version, id);
    }
  }
}

// ------------------------------------------------------------------------------------------------
// Field manager names

/** Upstream's prefixFromUserAgent: up to the first `/`, printable characters only, at most 128 bytes. */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const head = (userAgent ?? '').split('/')[0];
  let out = '';
  let bytes = 0;
  for (const ch of head) {
    if (!isPrintable(ch)) continue;
    const n = Buffer.byteLength(ch, 'utf8');
    if (bytes + n > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
    bytes += n;
  }
  return out;
}

/** The manager of a request: `fieldManager` if given, else from the User-Agent. */
export function defaultFieldManager(fieldManager: string | undefined, userAgent: string | undefined): string {
  return fieldManager ? fieldManager : managerFromUserAgent(userAgent);
}

/** Go's unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
function isPrintable(ch: string): boolean {
  return ch === ' ' || /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch);
}

/**
 * Validates a fieldManager option (ValidateFieldManager): at most 128 bytes, printable characters.
 * With `apply`, an empty manager is `Required value: is required for apply patch`.
 * Errors are reported at `path` (`fieldManager` for request options).
 */
export function validateFieldManager(fieldManager: string | undefined, opts: { apply?: boolean; path?: string } = {}): FieldError[] {
  const path = opts.path ?? 'fieldManager';
  const m = fieldManager ?? '';
  const errs: FieldError[] = [];
  if (opts.apply && m === '') {
    errs.push({ field: path, reason: 'FieldValueRequired', message: 'Required value: is required for apply patch' });
    return errs;
  }
  if (Buffer.byteLength(m, 'utf8') > FIELD_MANAGER_MAX_LENGTH) {
    errs.push({ field: path, reason: 'FieldValueTooLong', message: `Too long: may not be more than ${FIELD_MANAGER_MAX_LENGTH} bytes` });
  }
  let offset = 0;
  for (const ch of m) {
    if (!isPrintable(ch)) {
      errs.push({ field: path, reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(m)}: invalid characters at offset ${offset}` });
    }
    offset += Buffer.byteLength(ch, 'utf8');
  }
  return errs;
}

/** ValidateManagedFields of objectmeta validation, for entries a client sends (`metadata.managedFields`). */
export function validateManagedFields(entries: unknown, path = 'metadata.managedFields'): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(entries)) return errs;
  entries.forEach((raw, i) => {
    const p = `${path}[${i}]`;
    const e = (isObject(raw) ? raw : {}) as ManagedFieldsEntry;
    if (e.operation !== 'Apply' && e.operation !== 'Update') {
      errs.push({ field: `${p}.operation`, reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(e.operation ?? '')}: must be \`Apply\` or \`Update\`` });
    }
    if (e.fieldsType && e.fieldsType !== 'FieldsV1') {
      errs.push({ field: `${p}.fieldsType`, reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(e.fieldsType)}: must be \`FieldsV1\`` });
    }
    errs.push(...validateFieldManager(e.manager, { path: `${p}.manager` }));
    if ((e.subresource ?? '').length > MAX_SUBRESOURCE_NAME_LENGTH) {
      errs.push({ field: `${p}.subresource`, reason: 'FieldValueTooLong', message: `Too long: may not be more than ${MAX_SUBRESOURCE_NAME_LENGTH} bytes` });
    }
  });
  return errs;
}

// ------------------------------------------------------------------------------------------------
// Ordinary writes

export interface UpdateOptions {
  /** The field manager (already defaulted; empty becomes `unknown`). */
  manager: string;
  operation?: 'Update';
  /** `v1`, `storage.cluster.io/v1`: the version of the request. */
  apiVersion: string;
  /** `status` for the status subresource. */
  subresource?: string;
  now: Date | string;
  /** Fields this endpoint resets and never tracks (the strategy's reset fields, e.g. `[['status']]`). */
  ignoredFields?: readonly (readonly string[])[];
  /** Update managers kept (default 10). */
  maxUpdateManagers?: number;
}

export function getManagedFieldsOf(obj: unknown): unknown {
  return isObject(obj) && isObject(obj.metadata) ? obj.metadata.managedFields : undefined;
}

/**
 * A copy without metadata.managedFields: only the top level and metadata are copied, the rest is
 * shared with `obj` (a deep copy of a 100,000-key object costs tens of milliseconds; callers only
 * write the top level and metadata.managedFields of the copy).
 */
export function withoutManagedFields(obj: unknown): JsonObject {
  if (!isObject(obj)) return {};
  const c = { ...obj };
  if (isObject(obj.metadata)) {
    const m = { ...obj.metadata };
    delete m.managedFields;
    c.metadata = m;
  }
  return c;
}

export function setManagedFields(obj: JsonObject, entries: ManagedFieldsEntry[]): void {
  // an object with a deep FieldsV1 is deep itself: its JSON text takes the linear path (runtime/json/stringify.ts)
  if (entries.some((e) => isMarkedDeep(e.fieldsV1))) markDeep(entries);
  if (!isObject(obj.metadata)) {
    if (entries.length === 0) return;
    obj.metadata = {};
  }
  const meta = obj.metadata as JsonObject;
  if (entries.length === 0) delete meta.managedFields;
  else meta.managedFields = entries;
}

function isResetManagedFields(mf: unknown): boolean {
  if (!Array.isArray(mf)) return false;
  if (mf.length === 0) return true;
  return mf.length === 1 && isObject(mf[0]) && Object.keys(mf[0]).length === 0;
}

function emptyOnError(entries: unknown): Managed {
  try {
    return decodeManagedFields(entries);
  } catch {
    return new Map();
  }
}

/** decodeLiveOrNew: the request's own entries win unless empty or invalid; subresources always use the live ones. */
function decodeLiveOrNew(oldObj: unknown, newObj: unknown, ignoreNew: boolean): Managed {
  if (ignoreNew) return emptyOnError(getManagedFieldsOf(oldObj));
  const newMF = getManagedFieldsOf(newObj);
  if (isResetManagedFields(newMF)) return new Map();
  try {
    const m = decodeManagedFields(newMF);
    if (m.size > 0) return m;
  } catch {
    // fall through to the live object
  }
  return emptyOnError(getManagedFieldsOf(oldObj));
}

/**
 * The entries of an update whose request carries the live object's own entries unchanged (a patch,
 * or a PUT of what was read): when no field changes hands they are what decoding and encoding them
 * again would give, as every stored entry list is this module's encoding (valid, in upstream's
 * order, at most the cap of Update managers, no empty set). Undefined when that cannot be told.
 */
function keepsLiveEntries(oldObj: unknown, newObj: unknown, opts: UpdateOptions): ManagedFieldsEntry[] | undefined {
  if (oldObj === undefined || opts.subresource) return undefined;
  const entries = getManagedFieldsOf(newObj);
  if (!Array.isArray(entries) || entries.length === 0 || isResetManagedFields(entries)) return undefined;
  if (entries.length > (opts.maxUpdateManagers ?? DEFAULT_MAX_UPDATE_MANAGERS)) return undefined;
  return jsonEqual(entries, getManagedFieldsOf(oldObj)) ? (entries as ManagedFieldsEntry[]) : undefined;
}

/**
 * Managed fields after an ordinary write (create: `oldObj` undefined; update; json/merge/strategic
 * patch), as upstream's fieldmanager Update: the manager takes the fields it added or changed
 * (from whoever owned them), removed fields leave every manager, managers left empty are
 * dropped, and the object is returned with its new `metadata.managedFields`.
 * Returns a new object; the inputs are not modified (the result shares everything but its top
 * level and metadata with `newObj`). On an object that cannot be typed (e.g. a
 * map-list element without its key) managedFields are removed, as upstream's UpdateNoErrors does.
 */
export function updateManagedFields(oldObj: unknown, newObj: unknown, opts: UpdateOptions, schema: Schema | undefined, definitions: Definitions): JsonObject {
  const ignored = ignoredSet(opts.ignoredFields);
  const kept = keepsLiveEntries(oldObj, newObj, opts);
  let cmp: Comparison | undefined;
  if (kept !== undefined) {
    // compared first: when no field changes hands, the entries are the live ones, neither decoded nor encoded again
    const next = withoutManagedFields(newObj);
    try {
      cmp = filterComparison(compare(withoutManagedFields(oldObj), next, schema, definitions), ignored);
    } catch (err) {
      if (err instanceof TypedValueError) return next;
      throw err;
    }
    if (cmp.added.empty() && cmp.modified.empty() && cmp.removed.empty()) {
      setManagedFields(next, kept);
      return next;
    }
  }
  const managed = decodeLiveOrNew(oldObj, newObj, !!opts.subresource);
  if (oldObj === undefined && managed.size === 0 && isObject(newObj) && Object.keys(newObj).length > 0 && createTopType(schema, definitions)) {
    const created = createdWithManagedFields(newObj, opts, schema, definitions, ignored);
    if (created) return created;
  }
  const live = withoutManagedFields(oldObj ?? {});
  const next = withoutManagedFields(newObj);
  if (cmp === undefined) {
    try {
      cmp = filterComparison(compare(live, next, schema, definitions), ignored);
    } catch (err) {
      if (err instanceof TypedValueError) return next;
      throw err;
    }
  }
  const changed = cmp.modified.union(cmp.added);
  for (const [id, m] of managed) {
    const set = m.set.difference(m.set.intersection(changed)).difference(cmp.removed);
    if (set.empty()) managed.delete(id);
    else managed.set(id, { ...m, set });
  }
  const current = stripMeta(changed.recursiveDifference(ignored));
  if (!current.empty()) {
    const st = {
      manager: opts.manager || 'unknown',
      operation: 'Update' as const,
      apiVersion: opts.apiVersion,
      subresource: opts.subresource ?? '',
    };
    const id = managerIdentifier(st);
    const prev = managed.get(id);
    managed.set(id, { ...st, time: formatTime(opts.now), set: prev ? current.union(prev.set) : current });
  }
  capUpdateManagers(managed, opts.maxUpdateManagers);
  setManagedFields(next, encodeManagedFields(managed));
  return next;
}

/**
 * The usual create (no managedFields sent, or reset): one Update entry, its FieldsV1 written in one
 * walk (what compare({}, next) and encodeManagedFields give, without field sets), and the object
 * copied only where managedFields change (the top level and metadata). Undefined where that walk
 * declines (two list items sharing one key): the caller compares instead.
 */
function createdWithManagedFields(newObj: JsonObject, opts: UpdateOptions, schema: Schema | undefined, definitions: Definitions, ignored: FieldSet): JsonObject | undefined {
  if ((opts.maxUpdateManagers ?? DEFAULT_MAX_UPDATE_MANAGERS) < 1) return undefined;
  const next = { ...newObj };
  if (isObject(newObj.metadata)) {
    const m = { ...newObj.metadata };
    delete m.managedFields;
    next.metadata = m;
  }
  let fieldsV1: JsonObject | undefined;
  try {
    fieldsV1 = addedFieldsV1(next, schema, definitions, ignored, STRIP_SET);
  } catch (err) {
    if (err instanceof TypedValueError) return next;
    throw err;
  }
  if (fieldsV1 === undefined) return undefined;
  const st = { manager: opts.manager || 'unknown', operation: 'Update' as const, apiVersion: opts.apiVersion, subresource: opts.subresource ?? '', time: formatTime(opts.now) };
  setManagedFields(next, Object.keys(fieldsV1).length === 0 ? [] : [entryOf(st, fieldsV1)]);
  return next;
}
