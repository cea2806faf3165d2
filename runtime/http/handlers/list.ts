// LIST of a collection (a `watch` parameter makes it a watch, as upstream).

import { negotiateResource } from '../negotiation.ts';
import { queryBool } from '../query-bool.ts';
import { namespaceOf, type RequestContext } from './context.ts';
import { listParams } from './params.ts';
import { renderList, respond } from './render.ts';
import { watch } from './watch.ts';

export async function list(ctx: RequestContext): Promise<void> {
  if (queryBool(ctx.query, 'watch')) return watch(ctx);
  const n = negotiateResource(ctx.req.headers.accept, 'list', false);
  const result = await ctx.store.list(namespaceOf(ctx), listParams(ctx.query));
  respond(ctx, 200, n, renderList(ctx, n, result));
}
