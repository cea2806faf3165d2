// GET of one object (also /status).

import { negotiateResource } from '../negotiation.ts';
import { sendEncoded, wantsPretty } from '../respond.ts';
import { nameOf, namespaceOf, type RequestContext } from './context.ts';
import { renderObject, respond } from './render.ts';

export async function get(ctx: RequestContext): Promise<void> {
  const n = negotiateResource(ctx.req.headers.accept, 'object', false);
  const params = { resourceVersion: ctx.query.get('resourceVersion') ?? undefined };
  if (n.shape === 'object' && n.encoding === 'json' && !wantsPretty(ctx.req, ctx.query)) {
    // The common case: the store renders (and caches) exactly what renderObject + encode would.
    sendEncoded(ctx.res, 200, await ctx.store.getJson(namespaceOf(ctx), nameOf(ctx), params), n.contentType);
    return;
  }
  const obj = await ctx.store.get(namespaceOf(ctx), nameOf(ctx), params);
  respond(ctx, 200, n, renderObject(ctx, n, obj));
}
