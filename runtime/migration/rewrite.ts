// Rewriting one stored object at the current storage version. Upstream's migrator sends a no-op
// apply with the object's resourceVersion as a precondition; the apiserver then re-encodes it at the
// storage version, and etcd is written only when the encoding differs. Here the same is done in
// process: compare-and-swap on the listed revision, written only when the stored encoding is not
// the storage version's. Store.writeServerUpdate is a plain compare-and-swap through the store's
// encoding, so the write happens whatever Store.update would make of an unchanged object.

import { ApiError } from '../errors/api-error.ts';
import { fromStorageError } from '../object-storage/storage-errors.ts';
import { isObj, metaOf, type Obj } from '../api/object.ts';
import type { Store } from '../registry/store.ts';

export type RewriteOutcome =
  /** Written again, now at the storage version. */
  | 'rewritten'
  /** Already stored at the storage version: nothing to write (upstream's etcd skips equal bytes). */
  | 'current'
  /** Changed or deleted since it was listed: any later write stored it at the storage version already. */
  | 'skipped';

/** Rewrites `listed` (an item of `store.list`) at the store's storage version, unless it changed since. */
export async function rewriteObject(store: Store, listed: Obj): Promise<RewriteOutcome> {
  const m = metaOf(listed);
  const name = typeof m.name === 'string' ? m.name : '';
  const namespace = typeof m.namespace === 'string' ? m.namespace : undefined;
  const listedRevision = Number(m.resourceVersion);
  if (!name || !Number.isSafeInteger(listedRevision)) throw ApiError.internal(new Error(`listed object without name or resourceVersion: ${JSON.stringify(m)}`));
  const key = store.key(namespace, name);
  let kv;
  try {
    kv = (await store.storage.get(key)).kv;
  } catch (e) {
    throw fromStorageError(e, { resource: store.resource, name, op: 'get' });
  }
  if (!kv || kv.modRevision !== listedRevision) return 'skipped';
  if (isStoredAt(kv.value, store)) return 'current';
  // Decoded as stored: the store's write path converts it to the storage version (custom resources).
  const obj = store.decode(kv.value, kv.modRevision);
  obj.apiVersion ??= store.apiVersion;
  obj.kind ??= store.descriptor.kind;
  try {
    await store.writeServerUpdate(obj, kv.modRevision);
  } catch (e) {
    // The precondition failed (a newer write) or the object went away: either way nothing is left to migrate.
    if (e instanceof ApiError && (e.code === 409 || e.code === 404)) return 'skipped';
    throw e;
  }
  return 'rewritten';
}

/** True when a stored value is encoded at the store's version (apiVersion and kind as the store writes them). */
export function isStoredAt(value: string, store: Pick<Store, 'apiVersion' | 'descriptor'>): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return false;
  }
  return isObj(parsed) && parsed.apiVersion === store.apiVersion && parsed.kind === store.descriptor.kind;
}
