// What the admission chain knows of namespaces (NamespaceLookup): phase and labels from an
// informer on the namespaces Store, read from the Store itself until the informer is live and on a
// cache miss (a namespace created by another replica that this one has not seen yet), as upstream's
// NamespaceLifecycle does its live lookup.

import type { NamespaceLookup } from '../admission/namespace-lifecycle.ts';
import { metaOf, type Obj } from '../api/object.ts';
import { Informer } from '../controller/informer.ts';
import { ApiError } from '../errors/api-error.ts';
import type { Store } from './store.ts';

export class NamespaceIndex implements NamespaceLookup {
  private readonly informer: Informer;

  constructor(private readonly namespaces: Store) {
    this.informer = new Informer(namespaces, { log: (m) => process.stderr.write(`namespace index: ${m}\n`) });
  }

  /** Follows the namespaces from now on (reads go to storage until then). */
  start(): Promise<void> {
    return this.informer.start();
  }

  stop(): void {
    this.informer.stop();
  }

  async phase(name: string): Promise<'Active' | 'Terminating' | undefined> {
    const ns = await this.lookup(name);
    if (!ns) return undefined;
    return metaOf(ns).deletionTimestamp ? 'Terminating' : 'Active';
  }

  async labels(name: string): Promise<Record<string, string> | undefined> {
    const ns = await this.lookup(name);
    if (!ns) return undefined;
    const labels = metaOf(ns).labels;
    return labels && typeof labels === 'object' ? labels : {};
  }

  private async lookup(name: string): Promise<Obj | undefined> {
    const cached = this.informer.live ? this.informer.get(name) : undefined;
    if (cached) return cached;
    try {
      return await this.namespaces.get(undefined, name);
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return undefined;
      throw e;
    }
  }
}
