// Finds the owner an owner reference names (upstream's isDangling): the resource by the
// reference's API group and kind among the served ones (custom resources of established CRDs
// included), the object by name in the dependent's namespace (none for a cluster-scoped owner),
// and verified by uid. A uid that was found missing stays missing (uids are never reused), so
// confirmed absences are remembered in a bounded cache, as upstream's absentOwnerCache.

import { ApiError } from '../errors/api-error.ts';
import type { Obj } from '../api/object.ts';
import { metaOf } from '../api/object.ts';
import type { Registry } from '../registry/registry.ts';
import type { Store } from '../registry/store.ts';
import { FOREGROUND_FINALIZER, groupOfApiVersion, hasFinalizer, isBeingDeleted, type ObjectIdentity, type OwnerReference } from './owner-reference.ts';

/** The reference's group and kind are not served (yet): retried later, as upstream retries a REST mapping failure. */
export class UnresolvableOwnerError extends Error {}

/** A cluster-scoped dependent names a namespaced owner: invalid, never retried (upstream's namespacedOwnerOfClusterScopedObjectErr). */
export class NamespacedOwnerOfClusterScopedObjectError extends Error {
  constructor() {
    super('cluster-scoped objects cannot refer to namespaced owners');
  }
}

export type OwnerState =
  | { state: 'dangling' }
  /** Exists and is not waiting for its dependents. */
  | { state: 'solid'; owner: Obj }
  /** Exists, being deleted in the foreground. */
  | { state: 'waitingForDependentsDeletion'; owner: Obj };

export interface ClassifiedReferences {
  solid: OwnerReference[];
  dangling: OwnerReference[];
  waitingForDependentsDeletion: OwnerReference[];
}

const ABSENT_CACHE_SIZE = 500;

/** Owner coordinates known to be absent, least recently added first out. */
export class AbsentOwnerCache {
  private readonly keys = new Set<string>();

  static key(ref: { apiVersion: string; kind: string; name: string; uid: string }, namespace: string): string {
    return JSON.stringify([groupOfApiVersion(ref.apiVersion), ref.kind, namespace, ref.name, ref.uid]);
  }

  add(key: string): void {
    this.keys.delete(key);
    this.keys.add(key);
    if (this.keys.size > ABSENT_CACHE_SIZE) this.keys.delete(this.keys.values().next().value as string);
  }

  has(key: string): boolean {
    return this.keys.has(key);
  }

  addIdentity(id: ObjectIdentity): void {
    this.add(AbsentOwnerCache.key(id, id.namespace));
  }
}

export class OwnerResolver {
  constructor(
    private readonly registry: Registry,
    readonly absent: AbsentOwnerCache = new AbsentOwnerCache(),
  ) {}

  /** The store serving `kind` of the reference's API group, or undefined. */
  storeFor(apiVersion: string, kind: string): Store | undefined {
    const group = groupOfApiVersion(apiVersion);
    return this.registry.allStores().find((s) => s.descriptor.group === group && s.descriptor.kind === kind);
  }

  /** Where the reference points from `dependent`: dangling, or the owner as it is now. */
  async lookup(ref: OwnerReference, dependent: ObjectIdentity): Promise<OwnerState> {
    if (this.absent.has(AbsentOwnerCache.key(ref, '')) || this.absent.has(AbsentOwnerCache.key(ref, dependent.namespace))) return { state: 'dangling' };
    const store = this.storeFor(ref.apiVersion, ref.kind);
    if (!store) throw new UnresolvableOwnerError(`unable to resolve owner ${ref.apiVersion}/${ref.kind}: no served resource has this kind`);
    const namespaced = store.descriptor.namespaced;
    if (namespaced && dependent.namespace === '') throw new NamespacedOwnerOfClusterScopedObjectError();
    const namespace = namespaced ? dependent.namespace : '';
    let owner: Obj;
    try {
      owner = await store.get(namespaced ? namespace : undefined, ref.name);
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) {
        this.absent.add(AbsentOwnerCache.key(ref, namespace));
        return { state: 'dangling' };
      }
      throw e;
    }
    if (metaOf(owner).uid !== ref.uid) {
      this.absent.add(AbsentOwnerCache.key(ref, namespace));
      return { state: 'dangling' };
    }
    if (isBeingDeleted(owner) && hasFinalizer(owner, FOREGROUND_FINALIZER)) return { state: 'waitingForDependentsDeletion', owner };
    return { state: 'solid', owner };
  }

  /** Each reference of a dependent sorted by what its owner is now (upstream's classifyReferences). */
  async classify(refs: readonly OwnerReference[], dependent: ObjectIdentity): Promise<ClassifiedReferences> {
    const out: ClassifiedReferences = { solid: [], dangling: [], waitingForDependentsDeletion: [] };
    for (const ref of refs) out[(await this.lookup(ref, dependent)).state].push(ref);
    return out;
  }
}
