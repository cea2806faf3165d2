// DELETE of one object and of a collection: options and preconditions (rest/delete.ts),
// admission, then the strategy's own delete or the generic one (mark while finalizers remain,
// remove otherwise), retried when another writer got in between and the client set no precondition.

import { metaOf, type Obj } from '../../api/object.ts';
import { ApiError, successStatus } from '../../errors/api-error.ts';
import { checkDeleteOptions, checkPreconditions, deletionStep } from '../rest/delete.ts';
import type { DeleteOptions, DeleteResult, ListParams, ListResult } from '../store-types.ts';
import { admit, namespaceFor, type StoreContext } from './context.ts';
import { list } from './list.ts';

const DELETE_ATTEMPTS = 6;

/** The generic delete of one read object: mark (finalizers) or remove. */
export async function deleteObject(ctx: StoreContext, obj: Obj, rev: number, options: DeleteOptions): Promise<DeleteResult> {
  const m = metaOf(obj);
  const name = m.name as string;
  const step = deletionStep(obj, options, !!ctx.descriptor.generation);
  if (step.action === 'keep') return { kind: 'object', object: obj, deferred: true };
  if (step.action === 'mark') {
    if (options.dryRun) return { kind: 'object', object: step.next, deferred: true };
    return { kind: 'object', object: await ctx.objects.writeAt(step.next, rev), deferred: true };
  }
  if (!options.dryRun) await ctx.objects.deleteAt(namespaceFor(ctx, m.namespace), name, rev);
  if (ctx.descriptor.deleteReturns === 'Object') return { kind: 'object', object: obj, deferred: false };
  return { kind: 'status', status: successStatus(ctx.resource, name, m.uid) };
}

/**
 * DELETE of one object. `strategyDelete` replaces the generic delete when the resource has one
 * (Namespace, CustomResourceDefinition: mark, then their controllers finish).
 */
export async function deleteOne(
  ctx: StoreContext,
  namespace: string | undefined,
  name: string,
  options: DeleteOptions,
  strategyDelete?: (current: Obj, options: DeleteOptions) => Promise<DeleteResult>,
): Promise<DeleteResult> {
  checkDeleteOptions(options);
  const ns = namespaceFor(ctx, namespace);
  for (let attempt = 1; ; attempt++) {
    const current = await ctx.objects.get(ns, name);
    if (!current) throw ApiError.notFound(ctx.resource, name);
    checkPreconditions(ctx.resource, name, current.obj, options.preconditions);
    const warnings = await admit(ctx, { operation: 'DELETE', object: undefined, oldObject: current.obj, name, namespace: ns, dryRun: !!options.dryRun }, options.request);
    try {
      const result = strategyDelete ? await strategyDelete(current.obj, options) : await deleteObject(ctx, current.obj, current.rev, options);
      return warnings.length ? { ...result, warnings } : result;
    } catch (e) {
      if (e instanceof ApiError && e.reason === 'Conflict' && !options.preconditions && attempt < DELETE_ATTEMPTS) continue;
      throw e;
    }
  }
}

/** DELETE on the collection: deletes each match one by one; returns the matched items as they were, and the admission warnings. */
export async function deleteCollection(
  ctx: StoreContext,
  namespace: string | undefined,
  params: ListParams,
  options: DeleteOptions,
  deleteItem: (namespace: string | undefined, name: string) => Promise<DeleteResult>,
): Promise<{ list: ListResult; warnings: string[] }> {
  checkDeleteOptions(options);
  const listed = await list(ctx, namespace, { labelSelector: params.labelSelector, fieldSelector: params.fieldSelector, resourceVersion: params.resourceVersion, resourceVersionMatch: params.resourceVersionMatch });
  const warnings: string[] = [];
  for (const item of listed.items) {
    const m = metaOf(item);
    try {
      warnings.push(...((await deleteItem(m.namespace, m.name as string)).warnings ?? []));
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) continue;
      throw e;
    }
  }
  return { list: listed, warnings };
}
