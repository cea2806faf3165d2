// Admission's EquivalentResourceMapper over what this server serves (matchPolicy Equivalent).
//
// A custom resource is the same resource under each served version of its CRD; a webhook that
// registered for another version than the request's is sent the objects converted to its version
// by the CRD's converter (strategy None or the conversion webhook), as upstream does. A built-in
// resource is equivalent to the resources stored under the same keys (upstream keys its registry by
// the storage prefix: core v1 and events.cluster.io/v1 Events), converted by the converter of the one
// whose strategy stores it with the other (strategy.storedWith); any other built-in only to itself.

import type { EquivalentResourceMapper, GroupVersionKind, GroupVersionResource } from '../admission/index.ts';
import { isObj } from '../api/object.ts';
import type { Registry } from '../registry/registry.ts';
import type { Store } from '../registry/store.ts';
import type { ServedCustomResources } from './served-resources.ts';

const SCALE: GroupVersionKind = { group: 'autoscaling', version: 'v1', kind: 'Scale' };

export class ServedEquivalentResources implements EquivalentResourceMapper {
  constructor(
    private readonly registry: Registry,
    private readonly customResources: ServedCustomResources | undefined,
  ) {}

  equivalentResourcesFor(resource: GroupVersionResource): GroupVersionResource[] {
    const cr = this.customResources?.versionsOf(resource.group, resource.resource);
    if (!cr) {
      const sharing = this.storesSharingStorage(resource);
      return sharing.length > 1 ? sharing.map((s) => ({ group: s.descriptor.group, version: s.descriptor.version, resource: s.descriptor.plural })) : [resource];
    }
    return cr.versions.map((version) => ({ group: cr.group, version, resource: cr.plural }));
  }

  kindFor(resource: GroupVersionResource, subResource: string): GroupVersionKind | undefined {
    const cr = this.customResources?.versionsOf(resource.group, resource.resource);
    if (cr) {
      if (!cr.versions.includes(resource.version)) return undefined;
      return subResource === 'scale' ? SCALE : { group: cr.group, version: resource.version, kind: cr.kind };
    }
    const store = this.registry.storeFor(resource.group, resource.resource);
    return store ? { group: resource.group, version: resource.version, kind: store.descriptor.kind } : undefined;
  }

  async convert(objects: readonly unknown[], to: GroupVersionResource): Promise<unknown[]> {
    const objs = objects.map((o) => {
      if (!isObj(o)) throw new Error('the object to convert is not a JSON object');
      return o;
    });
    const cr = this.customResources?.versionsOf(to.group, to.resource);
    if (cr) return cr.converter.convert(objs, `${to.group}/${to.version}`);
    const converter = this.storesSharingStorage(to).find((s) => s.strategy.storedWith)?.strategy.storedWith?.converter;
    if (!converter) throw new Error(`no served resource ${to.resource}.${to.group} to convert to`);
    return converter.convert(objs, to.group ? `${to.group}/${to.version}` : to.version);
  }

  /** The built-in stores whose objects live under the same storage keys as `resource`'s (itself included). */
  private storesSharingStorage(resource: GroupVersionResource): Store[] {
    const store = this.registry.storeFor(resource.group, resource.resource);
    if (!store) return [];
    const prefix = store.prefix(undefined);
    return this.registry.allStores().filter((s) => s.prefix(undefined) === prefix);
  }
}
