// CREATE: the pure steps (rest/create.ts), admission, then storage; a generated name that is taken
// is generated again (upstream tries a few times, then answers AlreadyExists).

import { generateName, meta, type Obj } from '../../api/object.ts';
import { ApiError } from '../../errors/api-error.ts';
import { beforeCreate } from '../rest/create.ts';
import type { WriteOptions, WriteResult } from '../store-types.ts';
import { admit, namespaceFor, type StoreContext } from './context.ts';

const GENERATE_NAME_ATTEMPTS = 8;

export async function create(ctx: StoreContext, namespace: string | undefined, body: Obj, opts: WriteOptions & { setsManagedFields?: boolean } = {}): Promise<WriteResult> {
  const ns = namespaceFor(ctx, namespace);
  const prepared = beforeCreate(ctx, body, ns, opts);
  const warnings = [...prepared.warnings, ...(await admitCreate(ctx, prepared.obj, prepared.requestedName, ns, opts))];
  const m = meta(prepared.obj);
  for (let attempt = 1; ; attempt++) {
    try {
      return { object: await ctx.objects.create(ns, prepared.obj, { dryRun: opts.dryRun }), warnings };
    } catch (e) {
      if (!(prepared.generated && e instanceof ApiError && e.reason === 'AlreadyExists')) throw e;
      if (attempt >= GENERATE_NAME_ATTEMPTS) throw ApiError.alreadyExists(ctx.resource, m.name as string, { generateNameExhausted: true });
      m.name = generateName(m.generateName as string);
    }
  }
}

/** Admission of a create (also an update that creates). */
export function admitCreate(ctx: StoreContext, obj: Obj, requestedName: string, namespace: string | undefined, opts: WriteOptions): Promise<string[]> {
  return admit(ctx, { operation: 'CREATE', object: obj, oldObject: undefined, name: requestedName, namespace, dryRun: !!opts.dryRun }, opts.request);
}
