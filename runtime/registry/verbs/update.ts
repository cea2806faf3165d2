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
      const prepared = beforeCreate(ctx, info.updatedObject(undefined), ns, stepOptions);
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
  const result = await ctx.objects.guaranteedUpdate(ns, name, tryUpdate, { allowCreate: opts.allowCreate, dryRun: opts.dryRun });
  return { object: result.obj, warnings, created: result.created };
}
