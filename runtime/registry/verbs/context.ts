// What the Store's verbs work with: the resource (rest/context.ts), its object storage, the
// admission chain and the server's feature gates.

import type { AdmissionChain, AdmissionCheck, AdmissionRequest } from '../../admission/chain.ts';
import type { ResourceRef } from '../../errors/api-error.ts';
import type { ObjectStorage } from '../../object-storage/object-storage.ts';
import type { ResourceContext } from '../rest/context.ts';

export interface StoreContext extends ResourceContext {
  readonly resource: ResourceRef;
  readonly objects: ObjectStorage;
  readonly admission: AdmissionChain;
  readonly featureGates: Record<string, boolean>;
  /** Period of BOOKMARK events for watchers that allow them (upstream ≈ 1 min). */
  readonly bookmarkIntervalMs: number | undefined;
}

/** Runs the admission chain on one write of this resource; resolves with its warnings. */
export function admit(ctx: StoreContext, check: Omit<AdmissionCheck, 'resource'>, request: AdmissionRequest | undefined): Promise<string[]> {
  const d = ctx.descriptor;
  return ctx.admission.admit({ ...check, resource: { group: d.group, version: d.version, kind: d.kind, plural: d.plural, namespaced: d.namespaced } }, request);
}

/** The namespace part of a key: only for namespaced resources. */
export function namespaceFor(ctx: StoreContext, namespace: string | undefined): string | undefined {
  return ctx.descriptor.namespaced ? namespace : undefined;
}
