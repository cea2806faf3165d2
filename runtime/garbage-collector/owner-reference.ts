// Owner references and object identities as the garbage collector reads them from object metadata.

import { isObj, metaOf, type Obj } from '../api/object.ts';

/** An entry of metadata.ownerReferences as the spec declares it (OwnerReference), declared here: runtime/ reads nothing from out/. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  /** This reference points to the managing controller. */
  controller?: boolean;
  /** With the owner's foregroundDeletion finalizer, the owner stays until this reference is removed. */
  blockOwnerDeletion?: boolean;
}

/** The finalizer of `propagationPolicy: Foreground` (upstream's metav1.FinalizerDeleteDependents). */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';
/** The finalizer of `propagationPolicy: Orphan` (upstream's metav1.FinalizerOrphanDependents). */
export const ORPHAN_FINALIZER = 'orphan';

/** Who an object is: its coordinates as observed, `namespace` '' when cluster-scoped. */
export interface ObjectIdentity {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
}

/** `v1` → '', `storage.cluster.io/v1` → `storage.cluster.io`. */
export function groupOfApiVersion(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** The owner references of an object (copies; entries without a uid are skipped, validation rejects them anyway). */
export function ownerReferencesOf(obj: Obj): OwnerReference[] {
  const refs = metaOf(obj).ownerReferences;
  if (!Array.isArray(refs)) return [];
  const out: OwnerReference[] = [];
  for (const r of refs) {
    if (!isObj(r) || typeof r.uid !== 'string' || r.uid === '') continue;
    out.push({
      apiVersion: typeof r.apiVersion === 'string' ? r.apiVersion : '',
      kind: typeof r.kind === 'string' ? r.kind : '',
      name: typeof r.name === 'string' ? r.name : '',
      uid: r.uid,
      ...(typeof r.controller === 'boolean' ? { controller: r.controller } : {}),
      ...(typeof r.blockOwnerDeletion === 'boolean' ? { blockOwnerDeletion: r.blockOwnerDeletion } : {}),
    });
  }
  return out;
}

export function isBlocking(ref: OwnerReference): boolean {
  return ref.blockOwnerDeletion === true;
}

export function hasFinalizer(obj: Obj, finalizer: string): boolean {
  const f = metaOf(obj).finalizers;
  return Array.isArray(f) && f.includes(finalizer);
}

export function isBeingDeleted(obj: Obj): boolean {
  const ts = metaOf(obj).deletionTimestamp;
  return ts !== undefined && ts !== null && ts !== '';
}

/**
 * Whether a reference names the observed owner: same uid, name, kind and API group. The version may
 * differ (every served version of a resource reaches the same objects).
 */
export function referenceMatchesIdentity(ref: OwnerReference, owner: ObjectIdentity): boolean {
  return ref.uid === owner.uid && ref.name === owner.name && ref.kind === owner.kind && groupOfApiVersion(ref.apiVersion) === groupOfApiVersion(owner.apiVersion);
}

/** For logs and events: `Kind namespace/name` (or `Kind name`), with the uid. */
export function describeIdentity(id: ObjectIdentity): string {
  return `${id.kind} ${id.namespace ? `${id.namespace}/` : ''}${id.name} (uid ${id.uid})`;
}

/** Upstream's rendering of an owner reference in events: `[apiVersion/kind, namespace: ns, name: n, uid: u]`. */
export function describeReference(ref: OwnerReference, namespace: string): string {
  return `[${ref.apiVersion}/${ref.kind}, namespace: ${namespace}, name: ${ref.name}, uid: ${ref.uid}]`;
}
