// UPDATE, for every way an object changes: a PUT, each patch type and server-side apply give an
// UpdatedObjectInfo, and one guaranteedUpdate (object-storage) retries them all when another writer
// gets in between. With allowCreate (apply), a missing object is created through the create steps.

import { ApiError } from '../../errors/api-error.ts';
import type { StoredObject } from '../../object-storage/object-storage.ts';
import { beforeCreate } from '../rest/create.ts';
import { beforeUpdate } from '../rest/update.ts';
import type { UpdatedObjectInfo, UpdateOptions, WriteResult } from '../store-types.ts';
import { admit, namespaceFor, type StoreContext } from './context.ts';
import { admitCreate } from './create.ts';

export async function update(ctx: StoreContext, namespace: string | undefined, name: string, info: UpdatedObjectInfo, opts: UpdateOptions = {}): Promise<WriteResult> {
  const ns = namespaceFor(ctx, namespace);
  let warnings: string[] = [];
  const stepOptions = { ...opts, setsManagedFields: info.setsManagedFields };
  const tryUpdate = async (current: StoredObject | undefined) => {
    if (!current) {
      if (opts.subresource) throw ApiError.notFound(ctx.resource, name);
      const body = info.updatedObject(undefined);
      // a create on update ignores the body's resourceVersion (upstream's storage does)
      if (body.metadata && typeof body.metadata === 'object') delete (body.metadata as Record<string, unknown>).resourceVersion;
      const prepared = beforeCreate(ctx, body, ns, stepOptions);
      warnings = [...prepared.warnings, ...(await admitCreate(ctx, prepared.obj, prepared.requestedName, ns, opts))];
      return { obj: prepared.obj };
    }
    const old = current.obj;
    const prepared = beforeUpdate(ctx, info.updatedObject(old), name, ns, current, stepOptions);
    const admitted = await admit(
      ctx,
      { operation: 'UPDATE', object: prepared.obj, oldObject: old, name, namespace: ns, subresource: opts.subresource, dryRun: !!opts.dryRun },
      opts.request,
    );
    warnings = [...prepared.warnings, ...admitted];
    return { obj: prepared.obj, remove: prepared.remove };
  };
  // upstream's AllowCreateOnUpdate (Event): a PUT of a missing object creates it
  const allowCreate = opts.allowCreate || (ctx.strategy.allowCreateOnUpdate === true && opts.subresource === undefined);
  const result = await ctx.objects.guaranteedUpdate(ns, name, tryUpdate, { allowCreate, dryRun: opts.dryRun });
  return result.created ? { object: result.obj, warnings, created: true } : { object: result.obj, warnings };
}
