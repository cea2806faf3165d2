// `propagationPolicy: Foreground`: the owner stays, with its deletionTimestamp and the
// foregroundDeletion finalizer, while any dependent whose reference to it has
// `blockOwnerDeletion: true` remains. Its dependents are queued for deletion when the deletion
// starts (dependency-graph.ts); each deletion of a dependent queues the owner again, and once no
// blocking dependent is left the finalizer is removed and the store deletes the owner
// (upstream's processDeletingDependentsItem).

import type { GraphNode } from './dependency-graph.ts';
import { FOREGROUND_FINALIZER } from './owner-reference.ts';
import type { PolicyContext } from './policy-context.ts';

export async function finishForegroundDeletion(ctx: PolicyContext, owner: GraphNode): Promise<void> {
  const blocking = ctx.graph.blockingDependents(owner.identity.uid);
  if (blocking.length === 0) {
    await ctx.ops.removeFinalizer(owner.identity, FOREGROUND_FINALIZER);
    return;
  }
  // Those already deleting their own dependents are on their way; the others are looked at again.
  for (const dep of blocking) if (!dep.deletingDependents) ctx.attemptToDelete(dep.identity.uid);
}
