// What every handler gets for one request (upstream's RequestScope), and what it derives from it
// for the store: the object's namespace and name, and the admission request.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AdmissionOperation, AdmissionRequest } from '../../admission/chain.ts';
import type { Obj } from '../../api/object.ts';
import type { Store } from '../../registry/store.ts';
import type { Schema } from '../../schema/types.ts';
import type { UserInfo } from '../auth.ts';
import type { Route } from '../route-types.ts';

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  query: URLSearchParams;
  params: { namespace?: string; name?: string };
  route: Route<Handler>;
  store: Store;
  user: UserInfo;
  /** The named shapes (out/validators/definitions.json) for strategic merge patch; undefined: SMP not offered. */
  shapes: Record<string, Schema> | undefined;
}

export type Handler = (ctx: RequestContext) => Promise<void>;

export function namespaceOf(ctx: RequestContext): string | undefined {
  return ctx.store.descriptor.namespaced ? ctx.params.namespace : undefined;
}

/** The object name of the route (`{name}`). */
export function nameOf(ctx: RequestContext): string {
  return ctx.params.name as string;
}

/**
 * This request as admission sees it: its user, the options per operation, a signal that fires when
 * the client goes away. The user and the signal are made on first use (only webhooks read them).
 */
export function admissionRequest(ctx: RequestContext, options: Partial<Record<AdmissionOperation, Obj>>): AdmissionRequest {
  let controller: AbortController | undefined;
  return {
    get user() {
      return { username: ctx.user.name, uid: ctx.user.uid, groups: [...ctx.user.groups] };
    },
    options,
    get signal() {
      if (!controller) {
        const c = (controller = new AbortController());
        if (ctx.res.closed || ctx.res.destroyed) c.abort();
        else ctx.res.once('close', () => c.abort());
      }
      return controller.signal;
    },
    namedPath: ctx.params.name !== undefined,
  };
}
