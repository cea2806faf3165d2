// What a generated route module binds: every operation to a named runtime handler.
// The generated modules in out/routes take a RouteHandlers object; a handler name the runtime
// does not provide is a type error, so no route can exist without a real handler. The resource
// descriptor and the operation names live below the HTTP layer (runtime/api).
import type { Action, HandlerName } from '../api/operation.ts';
import type { ResourceDescriptor, Subresource } from '../api/resource-descriptor.ts';

export interface Route<H> {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path template with `{namespace}` and `{name}`. */
  path: string;
  action: Action;
  handlerName: HandlerName;
  handler: H;
  pathParameters: readonly ('namespace' | 'name')[];
  queryParameters: readonly string[];
  requestBody?: { shape: string; required: boolean; patch: boolean };
  successCodes: readonly number[];
  subresource?: Subresource;
  allNamespaces: boolean;
  deprecated: boolean;
}

export type RouteHandlers<H> = Record<HandlerName, H>;

export interface RouteTable<H> {
  resource: ResourceDescriptor;
  routes: Route<H>[];
}
