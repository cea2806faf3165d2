// PATCH of one object (also /status): JSON patch, merge patch and strategic merge patch are an
// UPDATE of the patched current object; server-side apply goes to apply.ts. Either way the store's
// one guaranteed update re-applies the patch when another writer got in between.

import type { Obj } from '../../api/object.ts';
import { ApiError } from '../../errors/api-error.ts';
import { applyStrategicMergePatch, StrategicMergePatchError } from '../../patch/index.ts';
import { patchedBy } from '../../registry/rest/updated-object.ts';
import { fieldErr } from '../../schema/errors.ts';
import type { Schema } from '../../schema/types.ts';
import { mediaType, readBody } from '../body.ts';
import { negotiateResource } from '../negotiation.ts';
import { APPLY_PATCH, applyJsonPatch, applyMergePatch, decodeJsonPatchBody, JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH } from '../patch.ts';
import { queryBool } from '../query-bool.ts';
import { writeOptionsOf } from './admission-options.ts';
import { applyPatch } from './apply.ts';
import { admissionRequest, nameOf, namespaceOf, type RequestContext } from './context.ts';
import { writeParams } from './params.ts';
import { renderObject, respond } from './render.ts';

/** Patch types this server accepts, as the 415 message lists them. */
export function supportedPatchTypes(withSchema: boolean): string[] {
  return withSchema ? [JSON_PATCH, MERGE_PATCH, APPLY_PATCH, STRATEGIC_MERGE_PATCH] : [JSON_PATCH, MERGE_PATCH];
}

export async function patch(ctx: RequestContext, subresource?: 'status'): Promise<void> {
  const n = negotiateResource(ctx.req.headers.accept, 'object', false);
  const type = mediaType(ctx.req.headers['content-type'] ?? '');
  const shapes = ctx.shapes;
  const supported = supportedPatchTypes(shapes !== undefined && shapes[ctx.store.descriptor.kind] !== undefined);
  if (!supported.includes(type)) throw ApiError.unsupportedMediaType(supported);
  const opts = writeParams(ctx.query, 'PatchOptions', ctx.req.headers['user-agent'], type === APPLY_PATCH);
  const force = queryBool(ctx.query, 'force');
  if (force !== undefined && type !== APPLY_PATCH) {
    throw ApiError.invalidOptions('PatchOptions', [fieldErr.forbidden('force', 'may not be specified for non-apply patch')]);
  }
  const text = (await readBody(ctx.req)).toString('utf8');
  if (type === APPLY_PATCH) return applyPatch(ctx, n, text, opts, force === true, subresource);
  // Decoded once (400s and duplicate-key findings before any work); a retry re-parses the known-good text afresh.
  const decoded = decodeJsonPatchBody(text, type, opts.fieldValidation);
  let firstAttempt = true;
  const patchValue = (): unknown => (firstAttempt ? ((firstAttempt = false), decoded.value) : JSON.parse(text));
  const apply = (current: Obj): Obj => {
    if (type === JSON_PATCH) return applyJsonPatch(current, { value: patchValue(), warnings: [] });
    if (type === MERGE_PATCH) return applyMergePatch(current, { value: patchValue(), warnings: [] });
    const defs = shapes as Record<string, Schema>;
    try {
      return applyStrategicMergePatch(current, patchValue(), defs[ctx.store.descriptor.kind], defs) as Obj;
    } catch (e) {
      if (e instanceof StrategicMergePatchError) throw e.toApiError();
      throw e;
    }
  };
  // As upstream, webhooks see the PatchOptions converted to the options of the operation performed.
  const request = admissionRequest(ctx, { UPDATE: writeOptionsOf(ctx, 'UpdateOptions', opts.dryRun) });
  const result = await ctx.store.update(namespaceOf(ctx), nameOf(ctx), patchedBy(apply), { ...opts, subresource, request });
  respond(ctx, 200, n, renderObject(ctx, n, result.object), [...decoded.warnings, ...result.warnings]);
}
