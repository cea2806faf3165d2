// What the three propagation policies share: the graph, the owner resolver, the writes, and the
// way to ask for another look at an object.

import type { DependencyGraph } from './dependency-graph.ts';
import type { ObjectOperations } from './operations.ts';
import type { OwnerResolver } from './owner-resolver.ts';

export interface PolicyContext {
  graph: DependencyGraph;
  resolver: OwnerResolver;
  ops: ObjectOperations;
  /** Queues a uid for the attempt-to-delete logic. */
  attemptToDelete(uid: string): void;
  log(message: string): void;
}
