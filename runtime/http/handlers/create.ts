// POST to a collection: CREATE.

import { negotiateResource } from '../negotiation.ts';
import { writeOptionsOf } from './admission-options.ts';
import { admissionRequest, namespaceOf, type RequestContext } from './context.ts';
import { objectBody, writeParams } from './params.ts';
import { renderObject, respond } from './render.ts';

export async function create(ctx: RequestContext): Promise<void> {
  const n = negotiateResource(ctx.req.headers.accept, 'object', false);
  const opts = writeParams(ctx.query, 'CreateOptions', ctx.req.headers['user-agent']);
  const { body, bodyBytes, warnings } = await objectBody(ctx, opts.fieldValidation);
  const request = admissionRequest(ctx, { CREATE: writeOptionsOf(ctx, 'CreateOptions', opts.dryRun) });
  const result = await ctx.store.create(namespaceOf(ctx), body, { ...opts, request, bodyBytes });
  respond(ctx, 201, n, renderObject(ctx, n, result.object), [...warnings, ...result.warnings]);
}
