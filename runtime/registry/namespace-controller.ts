// The namespace controller (upstream's runs in kube-controller-manager under leader election):
// driven by a watch on namespaces from start-up, whose initial events include every namespace left
// Terminating, it finishes each (finalizeNamespace: contents, then the namespace). The replica that
// serves a DELETE starts that work at once itself (the namespace strategy); this controller is what
// finishes it when that replica died before it was done, or after a restart. Run under the leader
// elector, so one replica resumes namespaces; the work is idempotent either way.

import { restartWatchLater } from '../controller/restart-watch.ts';
import { WorkQueue } from '../controller/work-queue.ts';
import { ApiError } from '../errors/api-error.ts';
import type { Obj } from './object.ts';
import { metaOf } from './object.ts';
import type { Registry } from './registry.ts';
import type { Store, WatchStream } from './store.ts';
import { finalizeNamespace } from './strategies/namespace.ts';

export interface NamespaceControllerOptions {
  registry: Registry;
  /** Problems the controller retries (default: stderr). */
  log?: (message: string) => void;
  /** First retry delay while contents remain (default 500 ms, as the strategy's own retries). */
  retryMs?: number;
}

export class NamespaceController {
  private readonly queue: WorkQueue;
  private readonly store: Store;
  private stream: WatchStream | undefined;
  private stopped = false;

  constructor(private readonly o: NamespaceControllerOptions) {
    const store = o.registry.storeFor('', 'namespaces');
    if (!store) throw new Error('no namespaces store');
    this.store = store;
    this.queue = new WorkQueue({
      reconcile: (name) => finalizeNamespace({ registry: o.registry, store }, name),
      // the namespace went meanwhile (another actor, the replica serving the DELETE, got there first)
      ignore: (e) => e instanceof ApiError && e.code === 404,
      log: (m) => this.log(m),
      baseBackoffMs: o.retryMs ?? 500,
      maxBackoffMs: 5000,
    });
  }

  private log(m: string): void {
    (this.o.log ?? ((x: string) => process.stderr.write(`namespace controller: ${x}\n`)))(m);
  }

  async start(): Promise<void> {
    await this.watch();
  }

  stop(): void {
    this.stopped = true;
    this.stream?.stop();
    this.queue.stop();
  }

  /** Resolves once nothing is queued or running (retries scheduled later do not count). */
  idle(): Promise<void> {
    return this.queue.settled();
  }

  private async watch(): Promise<void> {
    this.stream = await this.store.watch(undefined, {}, {
      send: (type, object: Obj) => {
        if (type === 'BOOKMARK' || type === 'DELETED') return;
        const m = metaOf(object);
        if (m.deletionTimestamp) this.queue.add(m.name as string);
      },
      error: (e) => this.log(`watch: ${e.message}`),
      end: () => restartWatchLater({ stopped: () => this.stopped, reopen: () => this.watch(), log: (m) => this.log(m) }),
    });
  }
}
