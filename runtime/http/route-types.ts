// What a generated route module binds: every operation to a named runtime handler.
// The generated modules in out/routes take a RouteHandlers object; a handler name the runtime
// does not provide is a type error, so no route can exist without a real handler.
import type { PrinterColumn } from './printer-column.ts';

export type HandlerName =
  | 'get'
  | 'list'
  | 'watch'
  | 'create'
  | 'update'
  | 'patch'
  | 'delete'
  | 'deleteCollection'
  | 'getStatus'
  | 'updateStatus'
  | 'patchStatus';

export type Action = 'get' | 'list' | 'watch' | 'watchlist' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection';

/** Everything the server needs to know about a resource besides its schema. */
export interface ResourceDescriptor {
  kind: string;
  listKind: string;
  group: string;
  version: string;
  plural: string;
  singular: string;
  shortNames: readonly string[];
  categories: readonly string[];
  namespaced: boolean;
  subresources: readonly 'status'[];
  deleteReturns: 'Status' | 'Object';
  maturity: 'stable' | 'beta' | 'alpha';
  generation: boolean;
  updateRequiresResourceVersion: boolean;
  nameSyntax: 'dns1123Subdomain' | 'dns1123Label' | 'pathSegment';
  fieldSelectors: readonly string[];
  printerColumns: readonly PrinterColumn[];
  /** The kind's schema name (definitions.json, out/validators) where it is not the kind: a kind served in two groups (events.cluster.io Event). */
  shape?: string;
}

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
  subresource?: 'status';
  allNamespaces: boolean;
  deprecated: boolean;
}

export type RouteHandlers<H> = Record<HandlerName, H>;

export interface RouteTable<H> {
  resource: ResourceDescriptor;
  routes: Route<H>[];
}
