// The dependency graph (upstream's GraphBuilder state): every observed object by uid, and for every
// uid named as an owner the dependents naming it, whether or not that owner has been observed (an
// owner not observed is upstream's "virtual" node). Changes are applied synchronously as the
// monitors observe them and return what the collector must look at next; the graph never writes.

import {
  FOREGROUND_FINALIZER,
  hasFinalizer,
  isBeingDeleted,
  isBlocking,
  ORPHAN_FINALIZER,
  ownerReferencesOf,
  referenceMatchesIdentity,
  type ObjectIdentity,
  type OwnerReference,
} from './owner-reference.ts';
import { metaOf, type Obj } from '../api/object.ts';

export interface GraphNode {
  identity: ObjectIdentity;
  /** The resource it was observed through (`<group>/<plural>`): a relist of that resource forgets nodes it no longer lists. */
  resource: string;
  owners: OwnerReference[];
  beingDeleted: boolean;
  /** Being deleted in the foreground: waits for its blocking dependents. */
  deletingDependents: boolean;
  /** Being deleted with the orphan finalizer. */
  orphaning: boolean;
}

/** A namespaced owner named from another namespace (upstream's OwnerRefInvalidNamespace warning). */
export interface InvalidNamespaceReference {
  dependent: ObjectIdentity;
  ref: OwnerReference;
}

/** What a change asks of the collector. */
export interface GraphEffects {
  /** uids to look at with the attempt-to-delete logic (dependents, and owners waiting in the foreground). */
  attemptToDelete: string[];
  /** uids of owners whose dependents must be orphaned. */
  attemptToOrphan: string[];
  invalidNamespaceReferences: InvalidNamespaceReference[];
  /** An owner now known to be gone (for the absent-owner cache). */
  absentOwner?: ObjectIdentity;
}

function noEffects(): GraphEffects {
  return { attemptToDelete: [], attemptToOrphan: [], invalidNamespaceReferences: [] };
}

/** The identity of an object observed through a resource of `apiVersion`/`kind`. */
export function identityOf(obj: Obj, apiVersion: string, kind: string): ObjectIdentity {
  const m = metaOf(obj);
  return { apiVersion, kind, namespace: typeof m.namespace === 'string' ? m.namespace : '', name: String(m.name ?? ''), uid: String(m.uid ?? '') };
}

export class DependencyGraph {
  private readonly nodes = new Map<string, GraphNode>();
  /** owner uid → uids of the observed objects naming it. */
  private readonly dependentsByOwner = new Map<string, Set<string>>();

  get size(): number {
    return this.nodes.size;
  }

  node(uid: string): GraphNode | undefined {
    return this.nodes.get(uid);
  }

  dependents(ownerUid: string): GraphNode[] {
    const out: GraphNode[] = [];
    for (const uid of this.dependentsByOwner.get(ownerUid) ?? []) {
      const n = this.nodes.get(uid);
      if (n) out.push(n);
    }
    return out;
  }

  /** Dependents whose reference to the owner has `blockOwnerDeletion: true`: what a foreground deletion waits for. */
  blockingDependents(ownerUid: string): GraphNode[] {
    return this.dependents(ownerUid).filter((d) => d.owners.some((r) => r.uid === ownerUid && isBlocking(r)));
  }

  /**
   * True when a look at `uid` would change nothing: not being deleted, and every owner observed
   * under the coordinates its reference gives and not deleting in the foreground (what a first
   * listing sends to be verified only because owners were listed after their dependents).
   */
  ownersAllPresent(uid: string): boolean {
    const n = this.nodes.get(uid);
    if (!n || n.beingDeleted || n.owners.length === 0) return false;
    return n.owners.every((ref) => {
      const owner = this.nodes.get(ref.uid);
      if (!owner || owner.beingDeleted) return false;
      if (owner.identity.namespace !== '' && owner.identity.namespace !== n.identity.namespace) return false;
      return referenceMatchesIdentity(ref, owner.identity);
    });
  }

  nodesOf(resource: string): GraphNode[] {
    return [...this.nodes.values()].filter((n) => n.resource === resource);
  }

  /** An object was listed, added or modified. */
  observe(resource: string, obj: Obj, apiVersion: string, kind: string): GraphEffects {
    const fx = noEffects();
    const identity = identityOf(obj, apiVersion, kind);
    if (!identity.uid) return fx;
    const owners = ownerReferencesOf(obj);
    const beingDeleted = isBeingDeleted(obj);
    const foreground = beingDeleted && hasFinalizer(obj, FOREGROUND_FINALIZER);
    const orphaning = beingDeleted && hasFinalizer(obj, ORPHAN_FINALIZER);
    const existing = this.nodes.get(identity.uid);
    if (!existing) {
      const n: GraphNode = { identity, resource, owners, beingDeleted, deletingDependents: foreground, orphaning };
      this.nodes.set(identity.uid, n);
      this.checkDependentsOfNewOwner(n, fx);
      this.addToOwners(n, owners, fx);
      this.transitions(n, undefined, fx);
      return fx;
    }
    const before = { beingDeleted: existing.beingDeleted, deletingDependents: existing.deletingDependents, orphaning: existing.orphaning };
    existing.identity = identity;
    existing.resource = resource;
    const { added, removed, changed } = referencesDiff(existing.owners, owners);
    if (added.length || removed.length || changed.length) {
      // An owner waiting in the foreground may have lost its last blocking dependent.
      for (const ref of removed) if (isBlocking(ref) && this.nodes.has(ref.uid)) fx.attemptToDelete.push(ref.uid);
      for (const [was, now] of changed) if (isBlocking(was) && !isBlocking(now) && this.nodes.has(now.uid)) fx.attemptToDelete.push(now.uid);
      existing.owners = owners;
      for (const ref of removed) this.unlink(ref.uid, existing.identity.uid);
      this.addToOwners(existing, added, fx);
    }
    existing.beingDeleted = beingDeleted;
    existing.deletingDependents = foreground;
    existing.orphaning = orphaning;
    this.transitions(existing, before, fx);
    return fx;
  }

  /** An object was deleted (observed, or missing from a relist). */
  forget(uid: string): GraphEffects {
    const fx = noEffects();
    const n = this.nodes.get(uid);
    if (!n) return fx;
    this.nodes.delete(uid);
    for (const ref of n.owners) this.unlink(ref.uid, uid);
    const deps = this.dependentsByOwner.get(uid);
    if (deps && deps.size > 0) {
      fx.absentOwner = n.identity;
      fx.attemptToDelete.push(...deps);
    }
    // Owners waiting in the foreground re-check whether anything still blocks them.
    for (const ref of n.owners) if (this.nodes.get(ref.uid)?.deletingDependents) fx.attemptToDelete.push(ref.uid);
    return fx;
  }

  /** Links `n` under each of `refs`; a reference that may not name what was observed sends `n` to be verified. */
  private addToOwners(n: GraphNode, refs: readonly OwnerReference[], fx: GraphEffects): void {
    let verify = false;
    for (const ref of refs) {
      let set = this.dependentsByOwner.get(ref.uid);
      if (!set) this.dependentsByOwner.set(ref.uid, (set = new Set()));
      set.add(n.identity.uid);
      const owner = this.nodes.get(ref.uid);
      if (!owner) {
        // Not observed (yet): the collector asks the API whether it exists.
        verify = true;
        continue;
      }
      if (owner.identity.namespace !== '' && owner.identity.namespace !== n.identity.namespace) {
        fx.invalidNamespaceReferences.push({ dependent: n.identity, ref });
        verify = true;
      } else if (!referenceMatchesIdentity(ref, owner.identity)) {
        verify = true;
      } else if (owner.deletingDependents) {
        // A dependent appearing under an owner already waiting in the foreground goes first, as the others.
        verify = true;
      }
    }
    if (verify) fx.attemptToDelete.push(n.identity.uid);
  }

  /** An owner observed for the first time: dependents that named it by other coordinates are verified. */
  private checkDependentsOfNewOwner(owner: GraphNode, fx: GraphEffects): void {
    for (const dep of this.dependents(owner.identity.uid)) {
      const refs = dep.owners.filter((r) => r.uid === owner.identity.uid);
      const namespaceMismatch = owner.identity.namespace !== '' && owner.identity.namespace !== dep.identity.namespace;
      if (namespaceMismatch) {
        for (const ref of refs) fx.invalidNamespaceReferences.push({ dependent: dep.identity, ref });
      }
      if (namespaceMismatch || refs.some((r) => !referenceMatchesIdentity(r, owner.identity))) fx.attemptToDelete.push(dep.identity.uid);
    }
  }

  private unlink(ownerUid: string, dependentUid: string): void {
    const set = this.dependentsByOwner.get(ownerUid);
    if (!set) return;
    set.delete(dependentUid);
    if (set.size === 0) this.dependentsByOwner.delete(ownerUid);
  }

  /** Deletion starting with the orphan or the foreground finalizer (upstream's processTransitions). */
  private transitions(n: GraphNode, before: { beingDeleted: boolean; deletingDependents: boolean; orphaning: boolean } | undefined, fx: GraphEffects): void {
    if (n.orphaning && !before?.orphaning) {
      fx.attemptToOrphan.push(n.identity.uid);
      return;
    }
    if (n.deletingDependents && !before?.deletingDependents) {
      for (const d of this.dependents(n.identity.uid)) fx.attemptToDelete.push(d.identity.uid);
      fx.attemptToDelete.push(n.identity.uid);
    }
  }
}

/** References added, removed and changed (same uid, other fields), by uid. */
export function referencesDiff(
  old: readonly OwnerReference[],
  now: readonly OwnerReference[],
): { added: OwnerReference[]; removed: OwnerReference[]; changed: [OwnerReference, OwnerReference][] } {
  const byUid = new Map(old.map((r) => [r.uid, r]));
  const added: OwnerReference[] = [];
  const changed: [OwnerReference, OwnerReference][] = [];
  for (const r of now) {
    const prev = byUid.get(r.uid);
    if (!prev) {
      added.push(r);
      continue;
    }
    byUid.delete(r.uid);
    if (JSON.stringify(prev) !== JSON.stringify(r)) changed.push([prev, r]);
  }
  return { added, removed: [...byUid.values()], changed };
}
