// A dependent whose owners may be gone (upstream's attemptToDeleteItem for an object that is not
// itself waiting for its dependents). Each reference is resolved against the API: a dependent
// with an owner that still exists keeps it and loses only its dangling references (and those to
// owners deleting in the foreground); a dependent with no owner left is deleted: in the foreground
// when an owner waits for it in the foreground and it has dependents of its own, otherwise with the
// policy its own finalizers ask for, Background by default.

import type { GraphNode } from './dependency-graph.ts';
import type { DeletionPropagation } from './operations.ts';
import { FOREGROUND_FINALIZER, hasFinalizer, ORPHAN_FINALIZER, ownerReferencesOf } from './owner-reference.ts';
import type { ClassifiedReferences } from './owner-resolver.ts';
import type { PolicyContext } from './policy-context.ts';
import { finishForegroundDeletion } from './foreground-policy.ts';
import { metaOf } from '../api/object.ts';

export type DependentDecision =
  | { action: 'keep' }
  /** A remaining owner: drop the references to owners that are gone or deleting in the foreground. */
  | { action: 'removeReferences'; ownerUids: string[] }
  /** No owner left; `unblockFirst`: its own blocking references are relaxed first to break a foreground cycle. */
  | { action: 'delete'; policy: DeletionPropagation; unblockFirst: boolean };

export interface DependentFacts {
  /** The dependent has dependents of its own in the graph. */
  hasDependents: boolean;
  /** One of its own dependents is itself deleting in the foreground (a potential cycle). */
  dependentDeletingInForeground: boolean;
  orphanFinalizer: boolean;
  foregroundFinalizer: boolean;
}

/** What to do with a dependent given its classified references (pure). */
export function decideDependent(refs: ClassifiedReferences, facts: DependentFacts): DependentDecision {
  const total = refs.solid.length + refs.dangling.length + refs.waitingForDependentsDeletion.length;
  if (total === 0) return { action: 'keep' };
  if (refs.solid.length > 0) {
    const ownerUids = [...refs.dangling, ...refs.waitingForDependentsDeletion].map((r) => r.uid);
    return ownerUids.length === 0 ? { action: 'keep' } : { action: 'removeReferences', ownerUids };
  }
  if (refs.waitingForDependentsDeletion.length > 0 && facts.hasDependents) {
    return { action: 'delete', policy: 'Foreground', unblockFirst: facts.dependentDeletingInForeground };
  }
  // Finalizers already on the object are honoured.
  const policy: DeletionPropagation = facts.orphanFinalizer ? 'Orphan' : facts.foregroundFinalizer ? 'Foreground' : 'Background';
  return { action: 'delete', policy, unblockFirst: false };
}

/** Looks at one object queued for attempt-to-delete. */
export async function attemptToDelete(ctx: PolicyContext, node: GraphNode): Promise<void> {
  // Being deleted is a one-way trip: nothing to do until it is gone, unless it waits for its dependents.
  if (node.beingDeleted && !node.deletingDependents) return;
  const latest = await ctx.ops.get(node.identity);
  if (!latest) return; // gone or replaced: the monitors observe the deletion
  if (node.deletingDependents) {
    await finishForegroundDeletion(ctx, node);
    return;
  }
  const owners = ownerReferencesOf(latest);
  if (owners.length === 0) return;
  const classified = await ctx.resolver.classify(owners, node.identity);
  const dependents = ctx.graph.dependents(node.identity.uid);
  const decision = decideDependent(classified, {
    hasDependents: dependents.length > 0,
    dependentDeletingInForeground: dependents.some((d) => d.deletingDependents),
    orphanFinalizer: hasFinalizer(latest, ORPHAN_FINALIZER),
    foregroundFinalizer: hasFinalizer(latest, FOREGROUND_FINALIZER),
  });
  switch (decision.action) {
    case 'keep':
      return;
    case 'removeReferences':
      await ctx.ops.removeOwnerReferences(node.identity, decision.ownerUids);
      return;
    case 'delete':
      if (decision.unblockFirst) await ctx.ops.unblockOwnerReferences(node.identity);
      await ctx.ops.delete(node.identity, String(metaOf(latest).resourceVersion ?? ''), owners, decision.policy);
      return;
  }
}
