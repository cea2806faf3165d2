// `propagationPolicy: Orphan` (and `orphanDependents: true`): the owner stays, with its
// deletionTimestamp and the orphan finalizer, until every dependent the graph knows has lost its
// reference to it; then the finalizer is removed and the store deletes the owner (upstream's
// attemptToOrphanWorker). A failure leaves the finalizer, and the owner is looked at again later.

import type { GraphNode } from './dependency-graph.ts';
import { ORPHAN_FINALIZER } from './owner-reference.ts';
import type { PolicyContext } from './policy-context.ts';

export async function orphanDependents(ctx: PolicyContext, owner: GraphNode): Promise<void> {
  const failures: string[] = [];
  for (const dep of ctx.graph.dependents(owner.identity.uid)) {
    try {
      await ctx.ops.removeOwnerReferences(dep.identity, [owner.identity.uid]);
    } catch (e) {
      failures.push(`${dep.identity.kind} ${dep.identity.name}: ${(e as Error).message}`);
    }
  }
  if (failures.length) throw new Error(`failed to orphan dependents of ${owner.identity.kind} ${owner.identity.name}: ${failures.join('; ')}`);
  await ctx.ops.removeFinalizer(owner.identity, ORPHAN_FINALIZER);
}
