// The runtime's handlers for every generated route (RouteHandlers<Handler>), one file per verb:
// they turn HTTP requests into Store calls and Store results into responses.

import type { RouteHandlers } from '../route-types.ts';
import type { Handler } from './context.ts';
import { create } from './create.ts';
import { deleteCollection } from './delete-collection.ts';
import { del } from './delete.ts';
import { get } from './get.ts';
import { list } from './list.ts';
import { patch } from './patch.ts';
import { update } from './update.ts';
import { watch } from './watch.ts';

export type { Handler, RequestContext } from './context.ts';
export { supportedPatchTypes } from './patch.ts';

export const handlers: RouteHandlers<Handler> = {
  get,
  list,
  watch,
  create,
  update: (ctx) => update(ctx),
  patch: (ctx) => patch(ctx),
  delete: del,
  deleteCollection,
  getStatus: get,
  updateStatus: (ctx) => update(ctx, 'status'),
  patchStatus: (ctx) => patch(ctx, 'status'),
  updateFinalize: (ctx) => update(ctx, 'finalize'),
};
