// Which Store a migration's spec.resource (group, version, resource) is rewritten through: the
// Registry's store of a built-in resource, or the storage-version store the CRD serving registers
// for a custom resource (runtime/http/custom-resources.ts). Upstream asks discovery the same question.

import type { GroupVersionResource } from './types.ts';
import { isConditionTrue, storageVersion, type CustomResourceDefinition } from '../crd/index.ts';
import { ApiError } from '../errors/api-error.ts';
import type { Registry } from '../registry/registry.ts';
import type { Store } from '../registry/store.ts';

export type ResolvedResource =
  /** The store whose encoding is the resource's current storage version. */
  | { state: 'found'; store: Store }
  /** Not served at all: the migration fails. */
  | { state: 'missing'; message: string }
  /** A custom resource whose serving has not caught up with its CRD yet (new, or a storage version just switched): try again. */
  | { state: 'pending'; message: string };

const CRD_GROUP = 'apiextensions.cluster.io';
const CRD_PLURAL = 'customresourcedefinitions';

/** `group/version` as apiVersion spells it (`v1` for the core group). */
export function groupVersion(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

export function describeResource(gvr: GroupVersionResource): string {
  return `${gvr.resource ?? ''} in ${groupVersion(gvr.group ?? '', gvr.version ?? '')}`;
}

export async function resolveResource(registry: Registry, gvr: GroupVersionResource): Promise<ResolvedResource> {
  const group = gvr.group ?? '';
  const version = gvr.version ?? '';
  const resource = gvr.resource ?? '';
  const missing: ResolvedResource = { state: 'missing', message: `resource does not exist in discovery: ${describeResource(gvr)}` };
  if (!resource || !version) return missing;

  const crd = group ? await readCRD(registry, `${resource}.${group}`) : undefined;
  if (crd) {
    // A CRD being deleted loses its objects: nothing to migrate, as for an unknown resource.
    if (crd.metadata?.deletionTimestamp) return missing;
    if (!(crd.spec.versions ?? []).some((v) => v.name === version && v.served)) return missing;
    const sv = storageVersion(crd);
    const store = registry.storeFor(group, resource);
    if (!isConditionTrue(crd, 'Established') || !sv || !store || store.apiVersion !== groupVersion(group, sv)) {
      return { state: 'pending', message: `waiting for ${describeResource(gvr)} to be served at storage version ${sv ?? '(none)'}` };
    }
    return { state: 'found', store };
  }

  const store = registry.storeFor(group, resource);
  // Built-in resources have one version, which is also their storage version.
  if (!store || store.descriptor.version !== version) return missing;
  return { state: 'found', store };
}

async function readCRD(registry: Registry, name: string): Promise<CustomResourceDefinition | undefined> {
  const crds = registry.storeFor(CRD_GROUP, CRD_PLURAL);
  if (!crds) return undefined;
  try {
    return (await crds.get(undefined, name)) as unknown as CustomResourceDefinition;
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) return undefined;
    throw e;
  }
}
