// DELETE of one object.

import type { DeleteResult } from '../../registry/store-types.ts';
import { negotiateResource, type Negotiated } from '../negotiation.ts';
import { deleteOptionsObject } from './admission-options.ts';
import { admissionRequest, nameOf, namespaceOf, type RequestContext } from './context.ts';
import { deleteOptions } from './params.ts';
import { renderObject, respond } from './render.ts';

function renderDelete(ctx: RequestContext, n: Negotiated, r: DeleteResult): unknown {
  return r.kind === 'status' ? r.status : renderObject(ctx, n, r.object);
}

export async function del(ctx: RequestContext): Promise<void> {
  const n = negotiateResource(ctx.req.headers.accept, 'object', false);
  const opts = await deleteOptions(ctx);
  const request = admissionRequest(ctx, { DELETE: deleteOptionsObject(opts) });
  const result = await ctx.store.delete(namespaceOf(ctx), nameOf(ctx), { ...opts, request });
  const code = result.kind === 'object' && result.deferred && opts.orphanDependents === false ? 202 : 200;
  respond(ctx, code, n, renderDelete(ctx, n, result), result.warnings);
}
