// metadata.managedFields of a write that is no apply: recorded as an Update by its manager
// (upstream's field manager around every update).

import { meta, metaOf, type Obj } from '../../api/object.ts';
import type { Subresource } from '../../api/resource-descriptor.ts';
import { updateManagedFields } from '../../patch/index.ts';
import type { ResourceContext } from './context.ts';

/** Fields an endpoint resets and never tracks: status on the main endpoint and on /finalize, spec on /status. */
export function ignoredFields(ctx: Pick<ResourceContext, 'hasStatus'>, subresource?: Subresource): string[][] {
  if (subresource === 'status') return [['spec']];
  return ctx.hasStatus ? [['status']] : [];
}

/** `obj` with this write recorded in its managedFields (unchanged without shapes). */
export function trackManagedFields(ctx: ResourceContext, old: Obj | undefined, obj: Obj, manager: string, subresource?: Subresource): Obj {
  if (!ctx.shapes) return obj;
  const next = updateManagedFields(
    old,
    obj,
    { manager, apiVersion: ctx.apiVersion, subresource, now: new Date(), ignoredFields: ignoredFields(ctx, subresource) },
    ctx.shapes[ctx.descriptor.shape ?? ctx.descriptor.kind],
    ctx.shapes,
  ) as Obj;
  const mf = metaOf(next).managedFields;
  if (mf === undefined || (Array.isArray(mf) && mf.length === 0)) delete meta(next).managedFields;
  return next;
}
