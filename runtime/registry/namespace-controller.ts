// The namespace controller (upstream's runs in kube-controller-manager under leader election): an
// informer on namespaces, whose initial state includes every namespace left Terminating, queues
// each Terminating namespace and finishes it: its contents, then the namespace itself (at the
// revision read, so a concurrent attempt by another replica is harmless). Run under the leader
// elector, so one replica finishes namespaces; the work is idempotent either way.

import { meta, metaOf, type Obj } from '../api/object.ts';
import { Informer } from '../controller/informer.ts';
import { WorkQueue } from '../controller/work-queue.ts';
import { ApiError } from '../errors/api-error.ts';
import type { Registry } from './registry.ts';
import type { Store } from './store.ts';

export interface NamespaceControllerOptions {
  registry: Registry;
  /** Problems the controller retries (default: stderr). */
  log?: (message: string) => void;
  /** First retry delay while contents remain (default 500 ms). */
  retryMs?: number;
}

/**
 * One attempt at finishing a Terminating namespace: delete its contents, then the namespace.
 * Throws while something remains (the queue retries with backoff).
 */
export async function finalizeNamespace(registry: Registry, store: Store, name: string): Promise<void> {
  const terminating = async (): Promise<Obj | undefined> => {
    const ns = await store.get(undefined, name).catch((e: unknown) => {
      if (e instanceof ApiError && e.code === 404) return undefined;
      throw e;
    });
    // gone, or created anew under the same name: nothing of it to delete
    return ns && meta(ns).deletionTimestamp ? ns : undefined;
  };
  if (!(await terminating())) return;
  await registry.deleteNamespaceContents(name);
  if (await registry.namespaceHasContent(name)) throw new Error('content remains');
  const cur = await terminating();
  if (!cur) return;
  const m = meta(cur);
  if (m.finalizers && m.finalizers.length) throw new Error('finalizers remain');
  await store.deleteObject(cur, Number(m.resourceVersion), {});
}

export class NamespaceController {
  private readonly queue: WorkQueue;
  private readonly informer: Informer;

  constructor(private readonly o: NamespaceControllerOptions) {
    const store = o.registry.storeFor('', 'namespaces');
    if (!store) throw new Error('no namespaces store');
    this.queue = new WorkQueue({
      reconcile: (name) => finalizeNamespace(o.registry, store, name),
      // the namespace went meanwhile (another replica got there first)
      ignore: (e) => e instanceof ApiError && e.code === 404,
      log: (m) => this.log(m),
      baseBackoffMs: o.retryMs ?? 500,
      maxBackoffMs: 5000,
    });
    this.informer = new Informer(store, {
      onChange: (type, obj) => {
        if (type !== 'DELETED' && metaOf(obj).deletionTimestamp) this.queue.add(metaOf(obj).name as string);
      },
      log: (m) => this.log(m),
    });
  }

  private log(m: string): void {
    (this.o.log ?? ((x: string) => process.stderr.write(`namespace controller: ${x}\n`)))(m);
  }

  async start(): Promise<void> {
    await this.informer.start();
  }

  stop(): void {
    this.informer.stop();
    this.queue.stop();
  }

  /** Resolves once nothing is queued or running (retries scheduled later do not count). */
  idle(): Promise<void> {
    return this.queue.settled();
  }
}
