// PUT of one object (also /status and /finalize): UPDATE with the body as the whole new object.

import type { Subresource } from '../../api/resource-descriptor.ts';
import { negotiateResource } from '../negotiation.ts';
import { writeOptionsOf } from './admission-options.ts';
import { admissionRequest, nameOf, namespaceOf, type RequestContext } from './context.ts';
import { objectBody, writeParams } from './params.ts';
import { renderObject, respond } from './render.ts';

export async function update(ctx: RequestContext, subresource?: Subresource): Promise<void> {
  const n = negotiateResource(ctx.req.headers.accept, 'object', false);
  const opts = writeParams(ctx.query, 'UpdateOptions', ctx.req.headers['user-agent']);
  const { body, bodyBytes, warnings } = await objectBody(ctx, opts.fieldValidation);
  // an update that creates (a strategy's AllowCreateOnUpdate) is a CREATE with CreateOptions, answered 201
  const request = admissionRequest(ctx, {
    CREATE: writeOptionsOf(ctx, 'CreateOptions', opts.dryRun),
    UPDATE: writeOptionsOf(ctx, 'UpdateOptions', opts.dryRun),
  });
  const result = await ctx.store.update(namespaceOf(ctx), nameOf(ctx), body, { ...opts, subresource, request, bodyBytes });
  respond(ctx, result.created ? 201 : 200, n, renderObject(ctx, n, result.object), [...warnings, ...result.warnings]);
}
