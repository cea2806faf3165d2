// DELETE of a collection: each selected object deleted as by its own DELETE.

import { negotiateResource } from '../negotiation.ts';
import { deleteOptionsObject } from './admission-options.ts';
import { admissionRequest, namespaceOf, type RequestContext } from './context.ts';
import { deleteOptions, listParams } from './params.ts';
import { renderList, respond } from './render.ts';

export async function deleteCollection(ctx: RequestContext): Promise<void> {
  const n = negotiateResource(ctx.req.headers.accept, 'list', false);
  const opts = await deleteOptions(ctx);
  const request = admissionRequest(ctx, { DELETE: deleteOptionsObject(opts) });
  const result = await ctx.store.deleteCollection(namespaceOf(ctx), listParams(ctx.query), { ...opts, request });
  respond(ctx, 200, n, renderList(ctx, n, result.list), result.warnings);
}
