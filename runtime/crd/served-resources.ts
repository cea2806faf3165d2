// The custom resources being served: for every established CRD, one Store per served version (all
// over the same keys, storing at the storage version; each read converts from the version an object
// was stored at and each write to the storage version through the CRD's converter, None or Webhook,
// built once per CRD generation), registered with the registry under the storage version's store.
// The CRD controller (controller.ts) decides what is installed; the HTTP layer
// (runtime/http/custom-resources.ts) routes requests to these stores.

import type { WebhookClient } from '../admission/client.ts';
import type { ResourceDescriptor } from '../api/resource-descriptor.ts';
import type { Registry } from '../registry/registry.ts';
import type { StoreOptions } from '../registry/store-types.ts';
import type { Store } from '../registry/store.ts';
import type { Schema } from '../schema/types.ts';
import { buildConverter, type CustomResourceConverter } from './conversion.ts';
import { applyShape, customResourceStrategy } from './custom-resource-strategy.ts';
import { CustomResourceCache, CustomResourceError, type CustomResourceVersion } from './custom-resource.ts';
import type { CustomResourceServingTarget } from './controller.ts';
import type { CustomResourceDefinition } from './types.ts';
import { servedVersions, storageVersion } from './versions.ts';

/** One served version of a custom resource. */
export interface ServedVersion {
  crv: CustomResourceVersion;
  descriptor: ResourceDescriptor;
  store: Store;
  /** definitions.json shapes plus this kind's schema (server-side apply, managedFields). */
  shapes: Record<string, Schema>;
}

/** One installed CRD. */
export interface InstalledResource {
  crd: CustomResourceDefinition;
  signature: string;
  group: string;
  plural: string;
  versions: Map<string, ServedVersion>;
  storageStore: Store;
  converter: CustomResourceConverter;
}

/** The served versions of one custom resource, for admission's matchPolicy Equivalent. */
export interface CustomResourceVersions {
  readonly group: string;
  readonly plural: string;
  readonly kind: string;
  /** Served versions in the CRD's order. */
  readonly versions: readonly string[];
  readonly converter: CustomResourceConverter;
}

export interface ServedResourcesOptions {
  registry: Registry;
  /** definitions.json shapes (the meta types server-side apply needs). */
  shapes: Record<string, Schema>;
  storeOptions?: StoreOptions;
  /** Transport of conversion webhooks (the admission engine's: one pool, one service resolver). */
  webhookClient: WebhookClient;
  /** Called after every change of the served set (discovery, OpenAPI, routing follow). */
  onChange?: () => void;
}

export class ServedCustomResources implements CustomResourceServingTarget {
  private readonly cache = new CustomResourceCache();
  private readonly installed = new Map<string, InstalledResource>();

  constructor(private readonly o: ServedResourcesOptions) {}

  private makeStore(crv: CustomResourceVersion, storageApiVersion: string, converter: CustomResourceConverter): ServedVersion {
    const descriptor: ResourceDescriptor = { ...crv.descriptor, deleteReturns: 'Status', printerColumns: crv.printerColumns };
    const shapes = { ...this.o.shapes, [crv.kind]: applyShape(crv) };
    const store = this.o.registry.newStore(descriptor, crv, customResourceStrategy(crv), {
      ...(this.o.storeOptions ?? {}),
      shapes,
      storageApiVersion,
      converter,
    });
    return { crv, descriptor, store, shapes };
  }

  /**
   * A store at the CRD's storage version, whether or not it is served (the controller deletes the
   * custom resources of a deleted CRD through it).
   */
  storageStore(crd: CustomResourceDefinition): Store {
    const name = crd.metadata?.name ?? '';
    const inst = this.installed.get(name);
    if (inst && inst.crd.metadata?.uid === crd.metadata?.uid) return inst.storageStore;
    const sv = storageVersion(crd) ?? crd.spec.versions[0]?.name ?? '';
    return this.makeStore(this.cache.get(crd, sv), `${crd.spec.group}/${sv}`, buildConverter(crd, { client: this.o.webhookClient })).store;
  }

  isInstalled(name: string): boolean {
    return this.installed.has(name);
  }

  /** Serves (or keeps serving) an established CRD as it is now. */
  install(crd: CustomResourceDefinition): void {
    const name = crd.metadata?.name ?? '';
    const signature = JSON.stringify([crd.metadata?.uid, crd.metadata?.generation, crd.status?.acceptedNames ?? null, crd.spec]);
    const existing = this.installed.get(name);
    if (existing && existing.signature === signature) {
      existing.crd = crd; // conditions and deletionTimestamp (terminating: no creates)
      return;
    }
    const sv = storageVersion(crd) ?? '';
    const storageApiVersion = `${crd.spec.group}/${sv}`;
    // one converter per CRD generation, shared by the stores of all its versions
    const converter = buildConverter(crd, { client: this.o.webhookClient });
    const versions = new Map<string, ServedVersion>();
    for (const v of servedVersions(crd)) {
      try {
        versions.set(v, this.makeStore(this.cache.get(crd, v), storageApiVersion, converter));
      } catch (e) {
        if (!(e instanceof CustomResourceError)) throw e;
      }
    }
    const storageServed = versions.get(sv);
    const storageStore = storageServed?.store ?? this.makeStore(this.cache.get(crd, sv), storageApiVersion, converter).store;
    if (existing) this.o.registry.unregister(existing.group, existing.plural, existing.storageStore);
    this.installed.set(name, { crd, signature, group: crd.spec.group, plural: storageStore.descriptor.plural, versions, storageStore, converter });
    this.o.registry.register(storageStore);
    this.o.onChange?.();
  }

  /** Stops serving a CRD (deleted, or no longer established). */
  uninstall(name: string): void {
    const inst = this.installed.get(name);
    if (!inst) return;
    this.installed.delete(name);
    this.o.registry.unregister(inst.group, inst.plural, inst.storageStore);
    this.cache.delete(inst.crd);
    this.o.onChange?.();
  }

  /** Every installed CRD. */
  all(): InstalledResource[] {
    return [...this.installed.values()];
  }

  /** The served versions of the custom resource `<plural>.<group>`; undefined when none is served. */
  versionsOf(group: string, plural: string): CustomResourceVersions | undefined {
    for (const inst of this.installed.values()) {
      if (inst.group !== group || inst.plural !== plural || inst.versions.size === 0) continue;
      return { group, plural, kind: inst.storageStore.descriptor.kind, versions: [...inst.versions.keys()], converter: inst.converter };
    }
    return undefined;
  }
}
