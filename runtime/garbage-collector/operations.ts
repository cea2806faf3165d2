// The collector's writes, through the registry's public store API (get, delete, patch), each on
// one object named by its identity and guarded by its uid: an object replaced by another of the
// same name is never touched. Writes are recorded under upstream's manager, kube-controller-manager.

import { ApiError } from '../errors/api-error.ts';
import { deepEqual, meta, metaOf, type Obj } from '../api/object.ts';
import type { Store } from '../registry/store.ts';
import { ownerReferencesOf, type ObjectIdentity, type OwnerReference } from './owner-reference.ts';
import type { OwnerResolver } from './owner-resolver.ts';
import { UnresolvableOwnerError } from './owner-resolver.ts';

export const FIELD_MANAGER = 'kube-controller-manager';

export type DeletionPropagation = 'Foreground' | 'Background' | 'Orphan';

function isNotFound(e: unknown): boolean {
  return e instanceof ApiError && e.code === 404;
}

function isConflict(e: unknown): boolean {
  return e instanceof ApiError && e.reason === 'Conflict';
}

/** Thrown inside a patch when the object under the name is another one (other uid). */
class ReplacedObject extends Error {}

export class ObjectOperations {
  constructor(private readonly resolver: OwnerResolver) {}

  private store(id: ObjectIdentity): Store {
    const s = this.resolver.storeFor(id.apiVersion, id.kind);
    if (!s) throw new UnresolvableOwnerError(`unable to resolve ${id.apiVersion}/${id.kind}: no served resource has this kind`);
    return s;
  }

  private ns(id: ObjectIdentity): string | undefined {
    return id.namespace === '' ? undefined : id.namespace;
  }

  /** The object now, or undefined when it is gone or replaced (other uid). */
  async get(id: ObjectIdentity): Promise<Obj | undefined> {
    try {
      const obj = await this.store(id).get(this.ns(id), id.name);
      return metaOf(obj).uid === id.uid ? obj : undefined;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /**
   * Deletes with the uid and resourceVersion as preconditions; when the resourceVersion moved but
   * the owner references did not, once more with the uid alone (upstream's deleteObject). Gone is done.
   */
  async delete(id: ObjectIdentity, resourceVersion: string, ownersAtVersion: readonly OwnerReference[], policy: DeletionPropagation): Promise<void> {
    const store = this.store(id);
    try {
      await store.delete(this.ns(id), id.name, { propagationPolicy: policy, preconditions: { uid: id.uid, resourceVersion } });
      return;
    } catch (e) {
      if (isNotFound(e)) return;
      if (!isConflict(e)) throw e;
    }
    const live = await this.get(id);
    if (!live) return;
    if (!deepEqual(ownerReferencesOf(live), [...ownersAtVersion])) {
      throw new Error(`${id.kind} ${id.name}: owner references changed while deleting; looked at again`);
    }
    try {
      await store.delete(this.ns(id), id.name, { propagationPolicy: policy, preconditions: { uid: id.uid } });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  /** Changes the object's owner references (patch with retries on conflicts); gone or replaced is done. */
  private async patchOwnerReferences(id: ObjectIdentity, change: (refs: Record<string, unknown>[]) => Record<string, unknown>[]): Promise<void> {
    try {
      await this.store(id).patch(
        this.ns(id),
        id.name,
        (current) => {
          const m = meta(current);
          if (m.uid !== id.uid) throw new ReplacedObject();
          const refs = (Array.isArray(m.ownerReferences) ? m.ownerReferences : []) as Record<string, unknown>[];
          const next = change(refs);
          if (next.length === 0) delete m.ownerReferences;
          else m.ownerReferences = next;
          return current;
        },
        { fieldManager: FIELD_MANAGER },
      );
    } catch (e) {
      if (e instanceof ReplacedObject || isNotFound(e)) return;
      throw e;
    }
  }

  /** Removes the references to `ownerUids` (orphaning, and dangling references of a dependent that keeps another owner). */
  removeOwnerReferences(id: ObjectIdentity, ownerUids: readonly string[]): Promise<void> {
    const drop = new Set(ownerUids);
    return this.patchOwnerReferences(id, (refs) => refs.filter((r) => !drop.has(String(r.uid))));
  }

  /** Sets `blockOwnerDeletion: false` on every blocking reference (breaks a foreground cycle). */
  unblockOwnerReferences(id: ObjectIdentity): Promise<void> {
    return this.patchOwnerReferences(id, (refs) => refs.map((r) => (r.blockOwnerDeletion === true ? { ...r, blockOwnerDeletion: false } : r)));
  }

  /** Removes one finalizer; the store deletes a deleting object whose last finalizer goes. Gone or replaced is done. */
  async removeFinalizer(id: ObjectIdentity, finalizer: string): Promise<void> {
    try {
      await this.store(id).patch(
        this.ns(id),
        id.name,
        (current) => {
          const m = meta(current);
          if (m.uid !== id.uid) throw new ReplacedObject();
          if (Array.isArray(m.finalizers)) m.finalizers = m.finalizers.filter((f) => f !== finalizer);
          return current;
        },
        { fieldManager: FIELD_MANAGER },
      );
    } catch (e) {
      if (e instanceof ReplacedObject || isNotFound(e)) return;
      throw e;
    }
  }
}
