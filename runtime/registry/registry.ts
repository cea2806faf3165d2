// The registry: one generic Store per resource over one Storage, plus what crosses resources
// (namespace lifecycle).

import { ApiError, type ResourceRef } from '../errors/api-error.ts';
import { fromStorageError } from '../errors/storage-errors.ts';
import type { ResourceDescriptor } from '../http/route-types.ts';
import type { CompiledValidator } from '../schema/types.ts';
import { isStorageError, type Storage, type WatchHandle } from '../storage/interface.ts';
import { nowTimestamp, metaOf, type Obj } from './object.ts';
import { strategyFor } from './strategies/index.ts';
import { Store, type StoreOptions } from './store.ts';

export interface RegisteredResource {
  descriptor: ResourceDescriptor;
  validator: CompiledValidator;
}

export interface RegistryOptions extends StoreOptions {
  featureGates?: Record<string, boolean>;
}

/** `<group>/<plural>` for core (`/configmaps`) and named groups. */
function storeKey(group: string, plural: string): string {
  return `${group}/${plural}`;
}

export class Registry {
  readonly featureGates: Record<string, boolean>;
  private readonly stores = new Map<string, Store>();

  constructor(
    readonly storage: Storage,
    resources: readonly RegisteredResource[],
    options: RegistryOptions = {},
  ) {
    this.featureGates = { ...(options.featureGates ?? {}) };
    for (const r of resources) {
      const store = new Store(this, storage, r.descriptor, r.validator, strategyFor(r.descriptor.kind, this.featureGates, r.descriptor.group), options);
      this.stores.set(storeKey(r.descriptor.group, r.descriptor.plural), store);
    }
  }

  /** Creates what must exist at start (the `default` namespace). */
  async init(): Promise<void> {
    const ns = this.storeFor('', 'namespaces');
    if (!ns) return;
    for (const name of ['default']) {
      const existing = await this.storage.get(ns.key(undefined, name));
      if (existing.kv) continue;
      try {
        await ns.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, { fieldValidation: 'Ignore' });
      } catch (e) {
        if (!(e instanceof ApiError && e.reason === 'AlreadyExists')) throw e;
      }
    }
  }

  storeFor(group: string, plural: string): Store | undefined {
    return this.stores.get(storeKey(group, plural));
  }

  /** Adds or replaces the store of a resource served at run time (custom resources of established CRDs). */
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

  /**
   * NamespaceLifecycle: creating into a missing namespace is 404 `namespaces "x" not found`; into a
   * terminating one, 403.
   */
  async admitNamespace(namespace: string, resource: ResourceRef, name: string): Promise<void> {
    const nsStore = this.storeFor('', 'namespaces');
    if (!nsStore || !namespace) return;
    const cache = this.namespaces;
    if (cache?.handle?.live === true) {
      // Kept current by a storage watch that sees every committed change before its writer resumes.
      const terminating = cache.terminating.get(namespace);
      if (terminating === undefined) throw ApiError.notFound({ group: '', plural: 'namespaces' }, namespace);
      if (terminating) {
        throw ApiError.forbidden(resource, name, `unable to create new content in namespace ${namespace} because it is being terminated`);
      }
      return;
    }
    if (!cache) this.followNamespaces(nsStore.prefix(undefined));
    let kv;
    try {
      kv = (await this.storage.get(nsStore.key(undefined, namespace))).kv;
    } catch (e) {
      if (isStorageError(e)) throw fromStorageError(e, { resource: { group: '', plural: 'namespaces' }, name: namespace });
      throw e;
    }
    if (!kv) throw ApiError.notFound({ group: '', plural: 'namespaces' }, namespace);
    const ns = JSON.parse(kv.value) as Obj;
    if (metaOf(ns).deletionTimestamp) {
      throw ApiError.forbidden(resource, name, `unable to create new content in namespace ${namespace} because it is being terminated`);
    }
  }

  /** Namespaces (name → terminating) for admitNamespace, from a list and then a storage watch. */
  private namespaces: { handle: WatchHandle | undefined; terminating: Map<string, boolean> } | undefined;

  /** Starts following the namespaces; until the watch is live (or after it fails) reads go to storage. */
  private followNamespaces(prefix: string): void {
    const cache: { handle: WatchHandle | undefined; terminating: Map<string, boolean> } = { handle: undefined, terminating: new Map() };
    this.namespaces = cache;
    const drop = (): void => {
      cache.handle?.cancel();
      if (this.namespaces === cache) this.namespaces = undefined;
    };
    const put = (key: string, value: string): void => {
      cache.terminating.set(key.slice(prefix.length), !!metaOf(JSON.parse(value) as Obj).deletionTimestamp);
    };
    void (async () => {
      let startKey: string | undefined;
      let revision: number | undefined;
      for (;;) {
        const page = await this.storage.list(prefix, { revision, startKey, limit: 1000 });
        revision = page.revision;
        for (const kv of page.items) put(kv.key, kv.value);
        if (!page.more || page.items.length === 0) break;
        startKey = page.items[page.items.length - 1].key + '\u0000';
      }
      const handle = await this.storage.watch(
        prefix,
        revision,
        (ev) => {
          if (ev.type === 'delete') cache.terminating.delete(ev.key.slice(prefix.length));
          else if (ev.value !== undefined) put(ev.key, ev.value);
        },
        () => drop(),
      );
      if (this.namespaces !== cache) handle.cancel();
      else cache.handle = handle;
    })().catch(() => drop());
  }

  /** Deletes every namespaced object in `namespace` (the namespace controller's job, done inline). */
  async deleteNamespaceContents(namespace: string): Promise<void> {
    for (const store of this.stores.values()) {
      if (!store.descriptor.namespaced) continue;
      const listed = await store.list(namespace, {});
      for (const item of listed.items) {
        const m = metaOf(item);
        try {
          const res = await store.delete(namespace, m.name as string, {});
          // Objects with finalizers stay until their finalizers go; nothing more to do here.
          void res;
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

  now(): string {
    return nowTimestamp();
  }
}
