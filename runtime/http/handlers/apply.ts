// Server-side apply (runtime/patch): the body (YAML or JSON) is the manager's whole intent. An
// UPDATE that may create (201 when it did); conflicts with other managers are 409 unless force=true.

import { isObj, meta, type Obj } from '../../api/object.ts';
import { ApiError } from '../../errors/api-error.ts';
import { apply as serverSideApply, ApplyConflictError, ManagedFieldsError } from '../../patch/index.ts';
import type { UpdatedObjectInfo } from '../../registry/store-types.ts';
import type { Schema } from '../../schema/types.ts';
import type { Negotiated } from '../negotiation.ts';
import { decodeApplyPatchBody } from '../patch.ts';
import { writeOptionsOf } from './admission-options.ts';
import { admissionRequest, nameOf, namespaceOf, type RequestContext } from './context.ts';
import type { WriteParams } from './params.ts';
import { renderObject, respond } from './render.ts';

export async function applyPatch(ctx: RequestContext, n: Negotiated, text: string, opts: WriteParams, force: boolean, subresource?: 'status'): Promise<void> {
  const store = ctx.store;
  const shapes = ctx.shapes as Record<string, Schema>;
  const { value: applied, warnings } = decodeApplyPatchBody(text, opts.fieldValidation);
  if (!isObj(applied)) throw ApiError.badRequest('the apply patch must be an object');
  const name = nameOf(ctx);
  const info: UpdatedObjectInfo = {
    setsManagedFields: true,
    updatedObject: (live: Obj | undefined): Obj => {
      let obj: Obj;
      try {
        obj = serverSideApply(
          live,
          applied,
          { manager: opts.fieldManager, force, apiVersion: store.apiVersion, kind: store.descriptor.kind, subresource, now: new Date(), ignoredFields: store.ignoredFields(subresource) },
          shapes[store.descriptor.kind],
          shapes,
        ).object as Obj;
      } catch (e) {
        if (e instanceof ApplyConflictError || e instanceof ManagedFieldsError) throw e.toApiError();
        throw e;
      }
      const m = meta(obj);
      if (live) m.resourceVersion = meta(live).resourceVersion;
      else if (m.name === undefined) m.name = name;
      return obj;
    },
  };
  // Apply that creates is a CREATE with CreateOptions; otherwise an UPDATE with UpdateOptions (upstream).
  const request = admissionRequest(ctx, {
    CREATE: writeOptionsOf(ctx, 'CreateOptions', opts.dryRun),
    UPDATE: writeOptionsOf(ctx, 'UpdateOptions', opts.dryRun),
  });
  const result = await store.update(namespaceOf(ctx), name, info, { ...opts, subresource, allowCreate: true, request });
  respond(ctx, result.created ? 201 : 200, n, renderObject(ctx, n, result.object), [...warnings, ...result.warnings]);
}
