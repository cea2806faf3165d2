// The namespace controller (upstream's runs in kube-controller-manager under leader election): an
// informer on namespaces, whose initial state includes every namespace left Terminating, queues
// each Terminating namespace and finishes it as upstream's namespaced resources deleter does: its
// contents, then the `cluster` finalizer out of spec.finalizers through /finalize; that write
// removes the namespace when no other finalizer is left (the namespace strategy). Run under the
// leader elector, so one replica finishes namespaces; the work is idempotent either way.

import { isObj, meta, metaOf, type Obj } from '../api/object.ts';
import { Informer } from '../controller/informer.ts';
import { WorkQueue } from '../controller/work-queue.ts';
import { ApiError } from '../errors/api-error.ts';
import type { Registry } from './registry.ts';
import type { Store } from './store.ts';
import { NAMESPACE_FINALIZER, specFinalizers } from './strategies/namespace.ts';

/** The manager of the controller's /finalize writes (upstream's namespace controller runs in kube-controller-manager). */
const FIELD_MANAGER = 'kube-controller-manager';

export interface NamespaceControllerOptions {
  registry: Registry;
  /** Problems the controller retries (default: stderr). */
  log?: (message: string) => void;
  /** First retry delay while contents remain (default 500 ms). */
  retryMs?: number;
}

/**
 * One attempt at finishing a Terminating namespace: delete its contents, then take the `cluster`
 * finalizer out of spec.finalizers (the other finalizers, sorted, stay for their owners).
 * Throws while content remains (the queue retries with backoff).
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
  const ns = await terminating();
  // finalized: the write that emptied spec.finalizers removed it, or its metadata.finalizers keep it for their owners
  if (!ns || specFinalizers(ns).length === 0) return;
  await registry.deleteNamespaceContents(name);
  if (await registry.namespaceHasContent(name)) throw new Error('content remains');
  const uid = meta(ns).uid;
  await store.patch(undefined, name, (cur) => {
    // another replica finished it and it was created anew: this one is gone (the queue ignores 404)
    if (metaOf(cur).uid !== uid || !metaOf(cur).deletionTimestamp) throw ApiError.notFound(store.resource, name);
    const finalizers = [...new Set(specFinalizers(cur).filter((f) => f !== NAMESPACE_FINALIZER))].sort();
    return { ...cur, spec: { ...(isObj(cur.spec) ? cur.spec : {}), finalizers } };
  }, { subresource: 'finalize', fieldManager: FIELD_MANAGER });
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
