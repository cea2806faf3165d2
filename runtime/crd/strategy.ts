// CustomResourceDefinition: upstream's v1 defaulting of spec.names (singular, listKind) on create
// and update, the write checks that need to understand the schemas (validateCRD /
// validateCRDUpdate: structural schema, defaults, rule compilation and costs, selectable fields,
// storedVersions, the conversion caBundle), storedVersions kept by the server (the storage version
// is appended on create and update), /status keeping metadata, and upstream's deleting REST:
// DELETE adds the cleanup finalizer and the Terminating condition; the CRD controller
// (controller.ts) then deletes every custom resource and removes the finalizer.
// It lives above the registry (upstream's apiextensions-apiserver registers its own REST storage):
// the server's assembly hands it to the Registry (runtime/http/bootstrap.ts).

import { deepClone, deepEqual, meta, metaOf, nowTimestamp, type Obj } from '../api/object.ts';
import type { Strategy } from '../registry/strategy.ts';
import { resetObjectMetaForStatus } from '../registry/strategies/status-metadata.ts';
import { defaultNames, setCondition } from './names.ts';
import type { CRDNames, CustomResourceDefinition } from './types.ts';
import { validateCRD, validateCRDUpdate } from './validate-crd.ts';
import { recordStoredVersions, validateStoredVersions, withStorageVersionRecorded } from './versions.ts';

export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.cluster.io';

const asCRD = (o: Obj): CustomResourceDefinition => o as unknown as CustomResourceDefinition;

/** Upstream's v1 defaulting of spec.names (runs on every decode, so on create and update alike). */
function defaultSpecNames(obj: Obj): void {
  const spec = obj.spec;
  if (!spec || typeof spec !== 'object' || Array.isArray(spec)) return;
  const names = (spec as Obj).names;
  if (names && typeof names === 'object' && !Array.isArray(names)) defaultNames(names as CRDNames);
}

export const customResourceDefinitionStrategy: Strategy = {
  prepareForCreate(obj) {
    defaultSpecNames(obj);
    if (obj.spec && typeof obj.spec === 'object' && Array.isArray((obj.spec as Obj).versions)) recordStoredVersions(asCRD(obj));
  },
  prepareForUpdate(obj, old) {
    defaultSpecNames(obj);
    if (obj.spec && typeof obj.spec === 'object' && Array.isArray((obj.spec as Obj).versions)) recordStoredVersions(asCRD(obj), asCRD(old));
  },
  prepareForStatusUpdate(obj, old) {
    resetObjectMetaForStatus(obj, old);
  },
  // The generated object rules run as the store's validator; these are the schema-aware checks.
  validate(obj) {
    return validateCRD(obj);
  },
  validateUpdate(obj, old) {
    const errs = validateCRDUpdate(obj, old);
    // validateCRDUpdate checks the list the main endpoint records (old plus the storage version); a
    // /status write may change it (shrink it after a storage migration), so the list it carries is
    // checked as given too, as upstream's status validation does.
    const crd = asCRD(obj);
    const given = crd.status?.storedVersions;
    if (Array.isArray(crd.spec?.versions) && !deepEqual(given, withStorageVersionRecorded(asCRD(old).status?.storedVersions, crd))) {
      for (const e of validateStoredVersions(given, crd.spec.versions)) {
        if (!errs.some((x) => x.field === e.field && x.message === e.message)) errs.push(e);
      }
    }
    return errs;
  },
  async delete(ctx, current, options) {
    const m = metaOf(current);
    if (m.deletionTimestamp) return { kind: 'object', object: current, deferred: true };
    const next = deepClone(current);
    const nm = meta(next);
    const now = nowTimestamp();
    nm.deletionTimestamp = now;
    nm.deletionGracePeriodSeconds = 0;
    const finalizers = [...(nm.finalizers ?? [])];
    if (!finalizers.includes(CRD_CLEANUP_FINALIZER)) finalizers.push(CRD_CLEANUP_FINALIZER);
    nm.finalizers = finalizers;
    const status = (next.status && typeof next.status === 'object' ? next.status : (next.status = {})) as NonNullable<CustomResourceDefinition['status']>;
    status.conditions = setCondition(
      status.conditions,
      { type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon' },
      now,
    );
    if (options.dryRun) return { kind: 'object', object: next, deferred: true };
    const written = await ctx.store.writeServerUpdate(next, Number(m.resourceVersion));
    return { kind: 'object', object: written, deferred: true };
  },
};
