// Server-side apply (application/apply-patch+yaml), as upstream's apiserver fieldmanager with
// structured-merge-diff's merge.Updater.Apply: merge the applied configuration into the live
// object, give the applier exactly the fields it applied, prune fields it applied before and
// now omits (unless someone else owns them), and refuse changes to fields other managers own
// unless `force`.

import type { Schema } from '../schema/types.ts';
import { ApplyConflictError, ManagedFieldsError, type ApplyConflict } from './errors.ts';
import { pathToString, type FieldSet } from './fieldpath.ts';
import {
  capUpdateManagers,
  decodeManagedFields,
  describeManager,
  encodeManagedFields,
  filterComparison,
  formatTime,
  getManagedFieldsOf,
  ignoredSet,
  managerIdentifier,
  setManagedFields,
  stripMeta,
  withoutManagedFields,
  type Managed,
  type ManagedFieldsEntry,
} from './managed-fields.ts';
import { deepCopy } from '../json/clone.ts';
import { jsonEqual } from '../json/deep-equal.ts';
import { isObject, type JsonObject } from '../json/is-object.ts';
import type { Definitions } from './schema-nav.ts';
import { compare, ensureNamedFieldsAreMembers, merge, removeItems, toFieldSet, TypedValueError, type FreshContainers } from './typed.ts';

export interface ApplyOptions {
  /** The fieldManager (required for apply; validate it with validateFieldManager first). */
  manager: string;
  force: boolean;
  /** The version of the request (`v1`, `storage.cluster.io/v1`); the applied object must carry it. */
  apiVersion: string;
  /** When given, the applied object's kind must equal it (`invalid object type: <gvk>` otherwise). */
  kind?: string;
  /** `status` for apply on the status subresource. */
  subresource?: string;
  now: Date | string;
  /** Fields this endpoint resets and never tracks (the strategy's reset fields, e.g. `[['status']]`). */
  ignoredFields?: readonly (readonly string[])[];
  maxUpdateManagers?: number;
}

export interface ApplyResult {
  /** The merged object, with its new metadata.managedFields. */
  object: JsonObject;
  /** Its managedFields entries (the same array as object.metadata.managedFields). */
  managedFields: ManagedFieldsEntry[];
  /** False when the apply left the object (apart from managedFields) unchanged. */
  changed: boolean;
}

function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: parts[0] };
  if (parts.length === 2) return { group: parts[0], version: parts[1] };
  return { group: '', version: '' };
}

/** Sets `out[k]`, as an own property even for `__proto__`. */
function putKey(out: JsonObject, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  else out[k] = v;
}

/**
 * `v` without null map entries (an applied `null` owns the field and leaves it unset), sharing
 * nothing with the live object or the applied configuration: the containers merge made (`fresh`)
 * are changed in place (or left alone when clean), every other container is copied. Key loops,
 * not Object.entries: this runs over every key of the object.
 */
function dropNulls(v: unknown, fresh: FreshContainers): unknown {
  if (typeof v !== 'object' || v === null) return v;
  const made = fresh.get(v);
  // clean: no null entry and nothing shared below (a 100,000-key map of strings is not walked again)
  if (made === true) return v;
  const inPlace = made !== undefined;
  if (Array.isArray(v)) {
    const out = inPlace ? v : new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      out[i] = typeof x === 'object' ? dropNulls(x, fresh) : x;
    }
    return out;
  }
  const src = v as JsonObject;
  const out: JsonObject = inPlace ? src : {};
  const keys = Object.keys(src);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const x = src[k];
    if (x === null) {
      if (inPlace) delete out[k];
      continue;
    }
    const y = typeof x === 'object' ? dropNulls(x, fresh) : x;
    if (!inPlace || y !== x) putKey(out, k, y);
  }
  return out;
}

/**
 * Server-side apply of `applied` onto `live` (undefined: the object does not exist yet and is
 * created). Throws ApplyConflictError (409) or ManagedFieldsError (400 / 500).
 */
export function apply(live: unknown, applied: unknown, opts: ApplyOptions, schema: Schema | undefined, definitions: Definitions): ApplyResult {
  if (!isObject(applied)) throw new ManagedFieldsError('error decoding YAML: the apply body must be an object', 'BadRequest');
  const appliedApiVersion = typeof applied.apiVersion === 'string' ? applied.apiVersion : '';
  if (opts.kind !== undefined) {
    const appliedKind = typeof applied.kind === 'string' ? applied.kind : '';
    if (appliedKind !== opts.kind || appliedApiVersion !== opts.apiVersion) {
      const gv = parseGroupVersion(appliedApiVersion);
      throw new ManagedFieldsError(`invalid object type: ${gv.group}/${gv.version}, Kind=${appliedKind}`, 'BadRequest');
    }
  }
  if (appliedApiVersion !== opts.apiVersion) {
    throw new ManagedFieldsError(
      `Incorrect version specified in apply patch. Specified patch version: ${appliedApiVersion}, expected: ${opts.apiVersion}`,
      'BadRequest',
    );
  }
  if (isObject(applied.metadata) && applied.metadata.managedFields !== undefined && applied.metadata.managedFields !== null) {
    throw new ManagedFieldsError('metadata.managedFields must be nil', 'BadRequest');
  }

  let managed: Managed;
  try {
    managed = decodeManagedFields(getManagedFieldsOf(live));
  } catch (err) {
    throw new ManagedFieldsError(`failed to decode managed fields: ${(err as Error).message}`, 'Internal');
  }
  const liveObj = withoutManagedFields(live ?? {});
  const config = applied;
  const ignored = ignoredSet(opts.ignoredFields);

  const applierState = { manager: opts.manager || 'unknown', operation: 'Apply' as const, apiVersion: opts.apiVersion, subresource: opts.subresource ?? '' };
  const applierId = managerIdentifier(applierState);

  let newObj: unknown;
  let configSet: FieldSet;
  const fresh: FreshContainers = new WeakMap();
  try {
    newObj = merge(liveObj, config, schema, definitions, fresh);
    configSet = toFieldSet(config, schema, definitions);
  } catch (err) {
    if (err instanceof TypedValueError) throw new ManagedFieldsError(`failed to create typed patch object: ${err.message}`, 'Internal');
    throw err;
  }
  if (!ignored.empty()) configSet = configSet.recursiveDifference(ignored);

  const last = managed.get(applierId);
  const lastSet = last?.set;
  managed.set(applierId, { ...applierState, time: last?.time, set: configSet });

  try {
    // prune: fields the applier owned and no longer applies, unless someone else owns them
    if (lastSet && !lastSet.empty()) newObj = prune(newObj, managed, lastSet, schema, definitions);

    // conflicts and ownership moves against the live object
    const cmp = filterComparison(compare(liveObj, newObj, schema, definitions), ignored);
    const changed = cmp.modified.union(cmp.added);
    const conflicts: { id: string; set: FieldSet }[] = [];
    for (const [id, m] of managed) {
      if (id === applierId) continue;
      const c = m.set.intersection(changed);
      if (!c.empty()) conflicts.push({ id, set: c });
    }
    if (!opts.force && conflicts.length > 0) throw conflictError(conflicts, managed);
    for (const [id, m] of managed) {
      if (id === applierId) continue;
      const set = m.set.difference(changed).difference(cmp.removed);
      if (set.empty()) managed.delete(id);
      else managed.set(id, { ...m, set });
    }
  } catch (err) {
    if (err instanceof TypedValueError) throw new ManagedFieldsError(`failed to prune fields: ${err.message}`, 'Internal');
    throw err;
  }

  const result = dropNulls(isObject(newObj) ? newObj : {}, fresh) as JsonObject;
  const applier = managed.get(applierId)!;
  const ownSet = stripMeta(applier.set);
  const objectChanged = !jsonEqual(liveObj, result) || live === undefined;
  const time = objectChanged || !applier.time ? formatTime(opts.now) : applier.time;
  if (ownSet.empty()) managed.delete(applierId);
  else managed.set(applierId, { ...applier, set: ownSet, time });

  capUpdateManagers(managed, opts.maxUpdateManagers);
  const entries = encodeManagedFields(managed);
  // the unchanged live object is returned as a copy: liveObj shares everything below metadata with `live`
  const object = objectChanged ? result : deepCopy(liveObj);
  setManagedFields(object, entries);
  return { object, managedFields: entries, changed: objectChanged };
}

function prune(merged: unknown, managed: Managed, lastSet: FieldSet, schema: Schema | undefined, defs: Definitions): unknown {
  const ens = (s: FieldSet): FieldSet => ensureNamedFieldsAreMembers(s, schema, defs);
  let all: FieldSet | undefined;
  for (const m of managed.values()) all = all ? all.union(m.set) : m.set;
  const lastE = ens(lastSet);
  // 1. remove everything the applier owned before
  let pruned = removeItems(merged, lastE, schema, defs);
  // 2. add back what anyone (including the new configuration) owns
  const mergedSetE = ens(toFieldSet(merged, schema, defs));
  let prunedSetE = ens(toFieldSet(pruned, schema, defs));
  const managedE = all ? ens(all) : lastE.difference(lastE);
  pruned = removeItems(merged, mergedSetE.difference(prunedSetE.union(managedE)), schema, defs);
  // 3. only ever remove what the applier owned before (dangling, unowned fields stay)
  prunedSetE = ens(toFieldSet(pruned, schema, defs));
  return removeItems(merged, mergedSetE.difference(prunedSetE).intersection(lastE), schema, defs);
}

function conflictError(conflicts: { id: string; set: FieldSet }[], managed: Managed): ApplyConflictError {
  const list: ApplyConflict[] = [];
  const byManager = new Map<string, { desc: string; paths: string[] }>();
  for (const { id, set } of conflicts) {
    const m = managed.get(id)!;
    const desc = describeManager(m);
    const paths = set.paths().map(pathToString);
    for (const p of paths) list.push({ manager: desc, field: p });
    byManager.set(id, { desc, paths });
  }
  let message: string;
  if (list.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${list[0].manager}: ${list[0].field}`;
  } else {
    const ids = [...byManager.keys()].sort();
    const lines: string[] = [];
    for (const id of ids) {
      const { desc, paths } = byManager.get(id)!;
      lines.push(`conflicts with ${desc}:`);
      for (const p of paths) lines.push(`- ${p}`);
    }
    message = `Apply failed with ${list.length} conflicts: ${lines.join('\n')}`;
  }
  // causes follow the same manager order as the message
  const ordered = [...byManager.keys()].sort().flatMap((id) => byManager.get(id)!.paths.map((field) => ({ manager: byManager.get(id)!.desc, field })));
  return new ApplyConflictError(message, ordered);
}
