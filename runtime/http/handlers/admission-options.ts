// The options object a webhook sees (`request.options`): CreateOptions, UpdateOptions and
// DeleteOptions as upstream serializes them (empty fields omitted).

import type { Obj } from '../../api/object.ts';
import type { DeleteOptions } from '../../registry/store-types.ts';
import type { RequestContext } from './context.ts';

/** The group of CreateOptions, UpdateOptions and DeleteOptions (upstream: meta.k8s.io). */
const META_API_VERSION = 'meta.cluster.io/v1';

export function writeOptionsObject(kind: 'CreateOptions' | 'UpdateOptions', o: { dryRun?: boolean; fieldManager?: string; fieldValidation?: string }): Obj {
  const out: Obj = { kind, apiVersion: META_API_VERSION };
  if (o.dryRun) out.dryRun = ['All'];
  if (o.fieldManager) out.fieldManager = o.fieldManager;
  if (o.fieldValidation) out.fieldValidation = o.fieldValidation;
  return out;
}

/** What webhooks see for this request's CreateOptions/UpdateOptions (the query's fields). */
export function writeOptionsOf(ctx: RequestContext, kind: 'CreateOptions' | 'UpdateOptions', dryRun: boolean): Obj {
  return writeOptionsObject(kind, { dryRun, fieldManager: ctx.query.get('fieldManager') ?? undefined, fieldValidation: ctx.query.get('fieldValidation') ?? undefined });
}

export function deleteOptionsObject(o: DeleteOptions): Obj {
  const out: Obj = { kind: 'DeleteOptions', apiVersion: META_API_VERSION };
  if (o.gracePeriodSeconds !== undefined) out.gracePeriodSeconds = o.gracePeriodSeconds;
  if (o.preconditions) out.preconditions = { ...o.preconditions };
  if (o.orphanDependents !== undefined) out.orphanDependents = o.orphanDependents;
  if (o.propagationPolicy !== undefined) out.propagationPolicy = o.propagationPolicy;
  if (o.dryRun) out.dryRun = ['All'];
  return out;
}
