// The server's own garbage collector (upstream's pkg/controller/garbagecollector): monitors
// every served resource into the dependency graph, then works two queues, attempt-to-delete
// (dependents whose owners may be gone, owners waiting in the foreground) and attempt-to-orphan.
// The queues start only once every resource has been listed, so that an owner's dependents are
// known before anything is decided; after a restart the graph is rebuilt from storage the same way
// and deletions left half done (foregroundDeletion or orphan finalizers) carry on.
// start() and stop() may alternate (leader election): each start builds everything anew.

import { WorkQueue } from '../controller/work-queue.ts';
import type { Registry } from '../registry/registry.ts';
import { attemptToDelete } from './background-policy.ts';
import { DependencyGraph, type GraphEffects } from './dependency-graph.ts';
import { ObjectOperations } from './operations.ts';
import { orphanDependents } from './orphan-policy.ts';
import { describeIdentity, describeReference, type ObjectIdentity } from './owner-reference.ts';
import { NamespacedOwnerOfClusterScopedObjectError, OwnerResolver } from './owner-resolver.ts';
import type { PolicyContext } from './policy-context.ts';
import { ResourceMonitors } from './resource-monitors.ts';

/** An event the collector records about an object (upstream's OwnerRefInvalidNamespace warning). */
export interface GarbageCollectorEvent {
  involved: ObjectIdentity;
  type: 'Warning';
  reason: string;
  message: string;
}

export interface GarbageCollectorOptions {
  registry: Registry;
  /** Problems it retries (default: stderr). */
  log?: (message: string) => void;
  /** Events about objects (default: logged). */
  recordEvent?: (event: GarbageCollectorEvent) => void;
  /** How often the set of served resources is compared with the watched ones (default 1 s). */
  resyncMs?: number;
  /** First retry delay of a failed item (default 1 s), doubling up to maxBackoffMs (default 30 s). */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
}

/** One started collector: its graph, queues and monitors. */
class Running {
  readonly graph = new DependencyGraph();
  private readonly resolver: OwnerResolver;
  private readonly deleteQueue: WorkQueue;
  private readonly orphanQueue: WorkQueue;
  private readonly monitors: ResourceMonitors;
  private readonly ctx: PolicyContext;
  /** Until every resource is listed, queued uids wait here. */
  private pending: { del: Set<string>; orphan: Set<string> } | undefined = { del: new Set(), orphan: new Set() };
  private stopped = false;
  /** Items taken up so far (idle() waits until a pass over both queues takes up none). */
  private started = 0;

  constructor(private readonly o: GarbageCollectorOptions) {
    this.resolver = new OwnerResolver(o.registry);
    const queue = (work: (uid: string) => Promise<void>): WorkQueue =>
      new WorkQueue({
        reconcile: (uid) => {
          this.started++;
          return work(uid);
        },
        log: (m) => this.log(m),
        baseBackoffMs: o.baseBackoffMs,
        maxBackoffMs: o.maxBackoffMs,
      });
    this.deleteQueue = queue((uid) => this.attemptToDelete(uid));
    this.orphanQueue = queue((uid) => this.attemptToOrphan(uid));
    this.ctx = {
      graph: this.graph,
      resolver: this.resolver,
      ops: new ObjectOperations(this.resolver),
      attemptToDelete: (uid) => this.enqueueDelete(uid),
      log: (m) => this.log(m),
    };
    this.monitors = new ResourceMonitors(
      o.registry,
      {
        observe: (resource, obj, apiVersion, kind) => this.apply(this.graph.observe(resource, obj, apiVersion, kind)),
        deleted: (_resource, uid) => this.apply(this.graph.forget(uid)),
        listed: (resource, seen) => {
          for (const n of this.graph.nodesOf(resource)) if (!seen.has(n.identity.uid)) this.apply(this.graph.forget(n.identity.uid));
        },
        removed: (resource) => {
          for (const n of this.graph.nodesOf(resource)) this.apply(this.graph.forget(n.identity.uid));
        },
        log: (m) => this.log(m),
      },
      o.resyncMs ?? 1000,
    );
  }

  async start(): Promise<void> {
    await this.monitors.start();
    const pending = this.pending;
    this.pending = undefined;
    if (this.stopped || !pending) return;
    for (const uid of pending.orphan) this.orphanQueue.add(uid);
    // Dependents queued only because their owners were listed after them need no look.
    for (const uid of pending.del) if (!this.graph.ownersAllPresent(uid)) this.deleteQueue.add(uid);
  }

  stop(): void {
    this.stopped = true;
    this.monitors.stop();
    this.deleteQueue.stop();
    this.orphanQueue.stop();
  }

  async idle(deadline: number): Promise<void> {
    for (;;) {
      const before = this.started;
      await this.deleteQueue.settled(deadline);
      await this.orphanQueue.settled(deadline);
      if (this.started === before || this.stopped || Date.now() >= deadline) return;
    }
  }

  private log(m: string): void {
    (this.o.log ?? ((x: string) => process.stderr.write(`garbage collector: ${x}\n`)))(m);
  }

  private enqueueDelete(uid: string): void {
    if (this.pending) this.pending.del.add(uid);
    else this.deleteQueue.add(uid);
  }

  private apply(fx: GraphEffects): void {
    if (this.stopped) return;
    if (fx.absentOwner) this.resolver.absent.addIdentity(fx.absentOwner);
    for (const { dependent, ref } of fx.invalidNamespaceReferences) {
      const event: GarbageCollectorEvent = {
        involved: dependent,
        type: 'Warning',
        reason: 'OwnerRefInvalidNamespace',
        message: `ownerRef ${describeReference(ref, dependent.namespace)} does not exist in namespace "${dependent.namespace}"`,
      };
      if (this.o.recordEvent) this.o.recordEvent(event);
      else this.log(`${describeIdentity(dependent)}: ${event.reason}: ${event.message}`);
    }
    for (const uid of fx.attemptToOrphan) {
      if (this.pending) this.pending.orphan.add(uid);
      else this.orphanQueue.add(uid);
    }
    for (const uid of fx.attemptToDelete) this.enqueueDelete(uid);
  }

  private async attemptToDelete(uid: string): Promise<void> {
    const node = this.graph.node(uid);
    if (!node) return; // deleted meanwhile, or an owner never observed
    try {
      await attemptToDelete(this.ctx, node);
    } catch (e) {
      if (e instanceof NamespacedOwnerOfClusterScopedObjectError) {
        // invalid, and retrying cannot help: left alone, as upstream does
        this.log(`${describeIdentity(node.identity)}: ${e.message}`);
        return;
      }
      throw e;
    }
  }

  private async attemptToOrphan(uid: string): Promise<void> {
    const node = this.graph.node(uid);
    if (!node || !node.orphaning) return;
    await orphanDependents(this.ctx, node);
  }
}

export class GarbageCollector {
  private running: Running | undefined;

  constructor(private readonly o: GarbageCollectorOptions) {}

  /** Lists every served resource into the graph, then starts collecting; resolves once listed. */
  async start(): Promise<void> {
    if (this.running) return;
    const run = new Running(this.o);
    this.running = run;
    try {
      await run.start();
    } catch (e) {
      run.stop();
      if (this.running === run) this.running = undefined;
      throw e;
    }
  }

  /** Stops watching and collecting; a later start() rebuilds the graph from storage. */
  stop(): void {
    this.running?.stop();
    this.running = undefined;
  }

  get started(): boolean {
    return this.running !== undefined;
  }

  /** Resolves once nothing is queued or running (retries scheduled later do not count), or at the deadline. */
  async idle(timeoutMs = 10_000): Promise<void> {
    await this.running?.idle(Date.now() + timeoutMs);
  }

  /** The number of objects in the graph (for tests and diagnostics). */
  get graphSize(): number {
    return this.running?.graph.size ?? 0;
  }
}
