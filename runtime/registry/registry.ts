// The registry: one generic Store per resource over one Storage, the admission chain every Store
// calls (namespace lifecycle first; the assembly adds the webhooks), and what crosses resources.

import { AdmissionChain } from '../admission/chain.ts';
import { NamespaceLifecycle } from '../admission/namespace-lifecycle.ts';
import { metaOf } from '../api/object.ts';
import { ApiError } from '../errors/api-error.ts';
import type { ResourceDescriptor } from '../api/resource-descriptor.ts';
import type { CompiledValidator } from '../schema/types.ts';
import type { Storage } from '../storage/interface.ts';
import { NamespaceIndex } from './namespace-index.ts';
import { strategyFor } from './strategies/index.ts';
import type { Strategy } from './strategy.ts';
import { Store } from './store.ts';
import type { StoreOptions } from './store-types.ts';

export interface RegisteredResource {
  descriptor: ResourceDescriptor;
  validator: CompiledValidator;
}

export interface RegistryOptions extends StoreOptions {
  featureGates?: Record<string, boolean>;
  /** Strategies by kind from layers above the registry (runtime/crd's), over strategyFor's. */
  strategies?: Readonly<Record<string, Strategy>>;
}

/** `<group>/<plural>` for core (`/configmaps`) and named groups. */
function storeKey(group: string, plural: string): string {
  return `${group}/${plural}`;
}

export class Registry {
  readonly featureGates: Record<string, boolean>;
  /** The admission chain of every Store of this registry. */
  readonly admission = new AdmissionChain();
  /** Phase and labels of namespaces, for admission (undefined without a namespaces resource). */
  readonly namespaces: NamespaceIndex | undefined;
  private readonly stores = new Map<string, Store>();

  constructor(
    readonly storage: Storage,
    resources: readonly RegisteredResource[],
    private readonly options: RegistryOptions = {},
  ) {
    this.featureGates = { ...(options.featureGates ?? {}) };
    for (const r of resources) {
      const strategy = options.strategies?.[r.descriptor.kind] ?? strategyFor(r.descriptor.kind, this.featureGates, r.descriptor.group);
      this.register(this.newStore(r.descriptor, r.validator, strategy));
    }
    const namespaces = this.storeFor('', 'namespaces');
    this.namespaces = namespaces && new NamespaceIndex(namespaces);
    if (this.namespaces) this.admission.add(new NamespaceLifecycle(this.namespaces));
  }

  /** A Store wired to this registry's storage, admission chain and feature gates. */
  newStore(descriptor: ResourceDescriptor, validator: CompiledValidator, strategy: Strategy = {}, options: StoreOptions = {}): Store {
    return new Store(this.storage, descriptor, validator, strategy, { ...this.options, ...options, admission: this.admission, featureGates: this.featureGates });
  }

  /** Creates what must exist at start (the `default` namespace), then follows the namespaces. */
  async init(): Promise<void> {
    const ns = this.storeFor('', 'namespaces');
    if (!ns) return;
    for (const name of ['default']) {
      if (await ns.objects.getRaw(undefined, name)) continue;
      try {
        await ns.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { fieldValidation: 'Ignore' });
      } catch (e) {
        if (!(e instanceof ApiError && e.reason === 'AlreadyExists')) throw e;
      }
    }
    await this.namespaces?.start();
  }

  /** Stops following the namespaces (before the storage closes). */
  stop(): void {
    this.namespaces?.stop();
  }

  storeFor(group: string, plural: string): Store | undefined {
    return this.stores.get(storeKey(group, plural));
  }

  /** Adds or replaces the store of a resource (custom resources of established CRDs, at run time). */
  register(store: Store): void {
    this.stores.set(storeKey(store.descriptor.group, store.descriptor.plural), store);
  }

  /** Removes a run-time store (only if `store` is still the one registered, when given). */
  unregister(group: string, plural: string, store?: Store): void {
    const key = storeKey(group, plural);
    if (store === undefined || this.stores.get(key) === store) this.stores.delete(key);
  }

  allStores(): Store[] {
    return [...this.stores.values()];
  }

  /** Deletes every namespaced object in `namespace` (the namespace controller's work). */
  async deleteNamespaceContents(namespace: string): Promise<void> {
    for (const store of this.stores.values()) {
      if (!store.descriptor.namespaced) continue;
      const listed = await store.list(namespace, {});
      for (const item of listed.items) {
        try {
          // objects with finalizers stay until their finalizers go; nothing more to do here
          await store.delete(namespace, metaOf(item).name as string, {});
        } catch (e) {
          if (!(e instanceof ApiError && e.code === 404)) throw e;
        }
      }
    }
  }

  /** True while any namespaced object remains in `namespace`. */
  async namespaceHasContent(namespace: string): Promise<boolean> {
    for (const store of this.stores.values()) {
      if (!store.descriptor.namespaced) continue;
      const listed = await store.list(namespace, { limit: 1 });
      if (listed.items.length) return true;
    }
    return false;
  }
}
