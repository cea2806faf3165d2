// Admission's EquivalentResourceMapper over what this server serves (matchPolicy Equivalent).
//
// A custom resource is the same resource under each served version of its CRD; a webhook that
// registered for another version than the request's is sent the objects converted to its version
// by the CRD's converter (strategy None or the conversion webhook), as upstream does. The built-in
// resources are each served under one version, so they have no equivalents but themselves.

import type { EquivalentResourceMapper, GroupVersionKind, GroupVersionResource } from '../admission/index.ts';
import { isObj } from '../api/object.ts';
import type { Registry } from '../registry/registry.ts';
import type { ServedCustomResources } from './served-resources.ts';

const SCALE: GroupVersionKind = { group: 'autoscaling', version: 'v1', kind: 'Scale' };

export class ServedEquivalentResources implements EquivalentResourceMapper {
  constructor(
    private readonly registry: Registry,
    private readonly customResources: ServedCustomResources | undefined,
  ) {}

  equivalentResourcesFor(resource: GroupVersionResource): GroupVersionResource[] {
    const cr = this.customResources?.versionsOf(resource.group, resource.resource);
    if (!cr) return [resource];
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
    const cr = this.customResources?.versionsOf(to.group, to.resource);
    if (!cr) throw new Error(`no served custom resource ${to.resource}.${to.group}`);
    const objs = objects.map((o) => {
      if (!isObj(o)) throw new Error('the object to convert is not a JSON object');
      return o;
    });
    return cr.converter.convert(objs, `${to.group}/${to.version}`);
  }
}
