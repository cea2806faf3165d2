// The pure steps of a delete (upstream's rest.BeforeDelete): the options, the preconditions, and
// whether the object goes now or is marked (deletionTimestamp, the finalizers the propagation
// policy asks for) and stays until its finalizers are gone.

import { deepClone, meta, metaOf, nowTimestamp, type Obj } from '../../api/object.ts';
import { ApiError, type ResourceRef } from '../../errors/api-error.ts';
import { fieldErr } from '../../schema/errors.ts';
import type { FieldError } from '../../schema/types.ts';
import type { DeleteOptions } from '../store-types.ts';

const SUPPORTED_POLICIES = ['Foreground', 'Background', 'Orphan', 'nil'];

export function checkDeleteOptions(o: DeleteOptions): void {
  const errs: FieldError[] = [];
  if (o.propagationPolicy !== undefined && !['Foreground', 'Background', 'Orphan'].includes(o.propagationPolicy)) {
    errs.push(fieldErr.notSupported('propagationPolicy', o.propagationPolicy, SUPPORTED_POLICIES));
  }
  if (o.orphanDependents !== undefined && o.propagationPolicy !== undefined) {
    errs.push(fieldErr.invalid('propagationPolicy', o.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'));
  }
  // a negative gracePeriodSeconds is treated as 1 upstream: nothing to report
  if (errs.length) throw ApiError.invalidOptions('DeleteOptions', errs);
}

/** 409 when the stored object is not the one the preconditions name. */
export function checkPreconditions(resource: ResourceRef, name: string, current: Obj, pre: DeleteOptions['preconditions']): void {
  const cm = metaOf(current);
  if (pre?.uid !== undefined && pre.uid !== cm.uid) {
    throw ApiError.conflict(resource, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${cm.uid ?? ''}`);
  }
  if (pre?.resourceVersion !== undefined && pre.resourceVersion !== cm.resourceVersion) {
    throw ApiError.conflict(
      resource,
      name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${cm.resourceVersion ?? ''}`,
    );
  }
}

export type DeletionStep =
  /** No finalizer: remove the object. */
  | { action: 'remove' }
  /** Already marked and nothing to add: answer the object as it is. */
  | { action: 'keep' }
  /** Write this marked state (deletionTimestamp, finalizers) and keep the object. */
  | { action: 'mark'; next: Obj };

/** What deleting `obj` does under `options` (upstream's deletion with finalizers and propagation policies). */
export function deletionStep(obj: Obj, options: DeleteOptions, bumpsGeneration: boolean): DeletionStep {
  const m = metaOf(obj);
  const finalizers = [...(m.finalizers ?? [])];
  const policy = options.propagationPolicy ?? (options.orphanDependents === true ? 'Orphan' : undefined);
  const wanted = policy === 'Foreground' ? 'foregroundDeletion' : policy === 'Orphan' ? 'orphan' : undefined;
  let changedFinalizers = false;
  if (wanted && !m.deletionTimestamp) {
    const other = wanted === 'orphan' ? 'foregroundDeletion' : 'orphan';
    const idx = finalizers.indexOf(other);
    if (idx >= 0) finalizers.splice(idx, 1);
    if (!finalizers.includes(wanted)) finalizers.push(wanted);
    changedFinalizers = true;
  }
  if (finalizers.length === 0) return { action: 'remove' };
  if (m.deletionTimestamp && !changedFinalizers) return { action: 'keep' };
  const next = deepClone(obj);
  const nm = meta(next);
  nm.finalizers = finalizers;
  if (!nm.deletionTimestamp) {
    nm.deletionTimestamp = nowTimestamp();
    nm.deletionGracePeriodSeconds = 0;
    if (bumpsGeneration && typeof nm.generation === 'number' && nm.generation > 0) nm.generation += 1;
  }
  return { action: 'mark', next };
}
