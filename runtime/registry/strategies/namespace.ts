// Namespace: `default` exists from the start and may not be deleted; DELETE marks the namespace
// Terminating (deletionTimestamp, status.phase) and returns it; the namespace controller then deletes
// everything in it and removes the `cluster` finalizer through /finalize, and the write that leaves
// spec.finalizers (and metadata.finalizers) empty removes the namespace. As upstream's
// namespace strategy: a new namespace gets the `cluster` finalizer in spec.finalizers (upstream's
// `kubernetes`), which updates of the main resource keep and only /finalize changes (upstream's
// FinalizeREST: the body but its status), and every write sets the label
// `cluster.io/metadata.name` to the name (upstream's kubernetes.io/metadata.name), overriding it.

import { ApiError } from '../../errors/api-error.ts';
import { fieldErr } from '../../schema/errors.ts';
import type { FieldError } from '../../schema/types.ts';
import { deepClone, meta, nowTimestamp, isObj, type Obj } from '../../api/object.ts';
import type { Strategy, StrategyContext } from '../strategy.ts';
import type { DeleteOptions, DeleteResult } from '../store-types.ts';

const PROTECTED = new Set(['default']);
/** The label webhook namespaceSelectors select a namespace by name with. */
export const NAMESPACE_NAME_LABEL = 'cluster.io/metadata.name';
/** The finalizer the namespace controller removes once the namespace's contents are gone. */
export const NAMESPACE_FINALIZER = 'cluster';

/** spec.finalizers of a namespace ([] when absent). */
export function specFinalizers(obj: Obj): string[] {
  const f = isObj(obj.spec) ? obj.spec.finalizers : undefined;
  return Array.isArray(f) ? (f as string[]) : [];
}

/**
 * metadata.finalizers after a namespace's first DELETE (upstream's shouldHaveOrphanFinalizer and
 * shouldHaveDeleteDependentsFinalizer): orphanDependents, else propagationPolicy, decides whether
 * `orphan` and `foregroundDeletion` are there, else the namespace keeps what it has. The same array
 * when nothing changes.
 */
export function finalizersOnDelete(current: string[] | undefined, options: DeleteOptions): string[] | undefined {
  const has = new Set(current ?? []);
  const decide = (fromOrphanDependents: (orphan: boolean) => boolean, policy: string, finalizer: string): boolean =>
    options.orphanDependents !== undefined ? fromOrphanDependents(options.orphanDependents) : options.propagationPolicy !== undefined ? options.propagationPolicy === policy : has.has(finalizer);
  const orphan = decide((o) => o, 'Orphan', 'orphan');
  const foreground = decide((o) => !o, 'Foreground', 'foregroundDeletion');
  if (orphan === has.has('orphan') && foreground === has.has('foregroundDeletion')) return current;
  const next = (current ?? []).filter((f) => f !== 'orphan' && f !== 'foregroundDeletion');
  if (orphan) next.push('orphan');
  if (foreground) next.push('foregroundDeletion');
  return next;
}

function setNameLabel(obj: Obj): void {
  const m = meta(obj);
  const labels = isObj(m.labels) ? m.labels : {};
  labels[NAMESPACE_NAME_LABEL] = m.name as string;
  m.labels = labels;
}

/**
 * Upstream's ValidateNamespaceStatusUpdate: status.phase is Active without a deletionTimestamp and
 * Terminating with one (reported at upstream's path status.Phase). Updates of the main resource
 * keep the stored status, so the check bites only when the phase changes, i.e. on /status.
 */
function statusPhaseErrors(obj: Obj, old: Obj): FieldError[] {
  const phase = isObj(obj.status) ? obj.status.phase : undefined;
  const oldPhase = isObj(old.status) ? old.status.phase : undefined;
  if (phase === oldPhase) return [];
  const deleting = Boolean(meta(obj).deletionTimestamp);
  const want = deleting ? 'Terminating' : 'Active';
  if (phase === want) return [];
  const message = deleting ? "may only be 'Terminating' if `deletionTimestamp` is not empty" : "may only be 'Active' if `deletionTimestamp` is empty";
  return [fieldErr.invalid('status.Phase', typeof phase === 'string' ? phase : '', message)];
}

export const namespaceStrategy: Strategy = {
  prepareForCreate(obj) {
    const status: Obj = isObj(obj.status) ? obj.status : {};
    status.phase = 'Active';
    obj.status = status;
    const spec: Obj = isObj(obj.spec) ? obj.spec : {};
    const finalizers = Array.isArray(spec.finalizers) ? spec.finalizers : [];
    if (!finalizers.includes(NAMESPACE_FINALIZER)) finalizers.push(NAMESPACE_FINALIZER);
    spec.finalizers = finalizers;
    obj.spec = spec;
    setNameLabel(obj);
  },
  prepareForUpdate(obj, old) {
    // spec.finalizers changes only through /finalize upstream
    const oldFinalizers = isObj(old.spec) ? old.spec.finalizers : undefined;
    const spec: Obj = isObj(obj.spec) ? obj.spec : {};
    if (oldFinalizers === undefined) delete spec.finalizers;
    else spec.finalizers = deepClone(oldFinalizers);
    obj.spec = spec;
    setNameLabel(obj);
  },
  prepareForStatusUpdate(obj) {
    setNameLabel(obj);
  },
  prepareForFinalizeUpdate(obj) {
    setNameLabel(obj);
  },
  // upstream's ShouldDeleteNamespaceDuringUpdate: a Terminating namespace goes once spec.finalizers are empty too
  mayDeleteDuringUpdate(obj) {
    return specFinalizers(obj).length === 0;
  },
  validateUpdate(obj, old) {
    return statusPhaseErrors(obj, old);
  },
  async delete(ctx: StrategyContext, current: Obj, options: DeleteOptions): Promise<DeleteResult> {
    const m = meta(current);
    const name = m.name as string;
    if (PROTECTED.has(name)) throw ApiError.forbidden(ctx.store.resource, name, 'this namespace may not be deleted');
    if (m.deletionTimestamp) {
      // upstream: once spec.finalizers are empty (finalized while its metadata.finalizers or nothing kept it), a DELETE is the generic one
      if (specFinalizers(current).length === 0) return ctx.store.deleteObject(current, Number(m.resourceVersion), options);
      return { kind: 'object', object: current, deferred: true };
    }
    const next = deepClone(current);
    const nm = meta(next);
    // upstream's first namespace DELETE sets the timestamp alone (no deletionGracePeriodSeconds)
    nm.deletionTimestamp = nowTimestamp();
    const finalizers = finalizersOnDelete(nm.finalizers as string[] | undefined, options);
    if (finalizers !== nm.finalizers) nm.finalizers = finalizers;
    const status: Obj = isObj(next.status) ? next.status : {};
    status.phase = 'Terminating';
    next.status = status;
    if (options.dryRun) return { kind: 'object', object: next, deferred: true };
    // the namespace controller (runtime/registry/namespace-controller.ts) sees it Terminating and finishes it
    return { kind: 'object', object: await ctx.store.writeServerUpdate(next, Number(m.resourceVersion)), deferred: true };
  },
};
