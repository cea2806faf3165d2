// Derives every HTTP operation of a resource: the documents' section 4.2 table for each resource,
// the all-namespaces list, the /status and /finalize operations, and upstream's watch paths, less
// the verbs the resource omits (`omitVerbs`).
// OpenAPI documents and route modules are both generated from this one list.
import { listShapeOf, type Model, type OperationKind, type Resource, type Subresource } from './model.ts';

// The handler names and actions are the runtime's: a route bound to a name it lacks fails the build.
import { VERB_OF_ACTION, type Action, type HandlerName } from '../../runtime/api/operation.ts';

export type { Action, HandlerName };

export interface Operation {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path template, `{namespace}` and `{name}` placeholders. */
  path: string;
  action: Action;
  handler: HandlerName;
  /** The operation kind whose parameter set applies (api.yaml x-cluster-operation-parameters). */
  parameterSet: OperationKind;
  pathParameters: Array<'namespace' | 'name'>;
  queryParameters: string[];
  /** Shape name of the request body, if any. */
  requestBody?: { shape: string; required: boolean; patch: boolean };
  /** Success status codes and the shape each returns. */
  responses: Array<{ code: number; shape: string }>;
  subresource?: Subresource;
  allNamespaces: boolean;
  description: string;
  deprecated?: boolean;
}

export function groupPrefix(group: string): string {
  const word = group === '' ? 'core' : group.split('.')[0];
  return word.charAt(0).toUpperCase() + word.slice(1);
}

export function apiRoot(r: Pick<Resource, 'group' | 'version'>): string {
  return r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
}

const patchShape = 'Patch';

export function operationsOf(model: Model, r: Resource): Operation[] {
  const root = apiRoot(r);
  const ns = r.scope === 'Namespaced';
  const gv = `${groupPrefix(r.group)}${r.version.charAt(0).toUpperCase()}${r.version.slice(1)}`;
  const nsWord = ns ? 'Namespaced' : '';
  const collection = ns ? `${root}/namespaces/{namespace}/${r.plural}` : `${root}/${r.plural}`;
  const item = `${collection}/{name}`;
  const watchCollection = ns ? `${root}/watch/namespaces/{namespace}/${r.plural}` : `${root}/watch/${r.plural}`;
  const scopeParams: Array<'namespace' | 'name'> = ns ? ['namespace'] : [];
  const itemParams: Array<'namespace' | 'name'> = ns ? ['name', 'namespace'] : ['name'];
  const deleteShape = r.deleteReturns === 'Status' ? 'Status' : r.shape;
  const q = (k: OperationKind) => model.operationParameters[k];
  const listQuery = q('list');
  const watchQuery = listQuery.filter((p) => p !== 'watch' && p !== 'pretty').concat(['pretty', 'watch']).sort();

  const ops: Operation[] = [
    {
      operationId: `read${gv}${nsWord}${r.kind}`, method: 'GET', path: item, action: 'get', handler: 'get', parameterSet: 'get',
      pathParameters: itemParams, queryParameters: q('get'), responses: [{ code: 200, shape: r.shape }], allNamespaces: false,
      description: `read the specified ${r.kind}`,
    },
    {
      operationId: `list${gv}${nsWord}${r.kind}`, method: 'GET', path: collection, action: 'list', handler: 'list', parameterSet: 'list',
      pathParameters: scopeParams, queryParameters: listQuery, responses: [{ code: 200, shape: listShapeOf(r) }], allNamespaces: false,
      description: `list or watch objects of kind ${r.kind}`,
    },
    {
      operationId: `create${gv}${nsWord}${r.kind}`, method: 'POST', path: collection, action: 'post', handler: 'create', parameterSet: 'create',
      pathParameters: scopeParams, queryParameters: q('create'), requestBody: { shape: r.shape, required: true, patch: false },
      responses: [200, 201, 202].map((code) => ({ code, shape: r.shape })), allNamespaces: false, description: `create a ${r.kind}`,
    },
    {
      operationId: `replace${gv}${nsWord}${r.kind}`, method: 'PUT', path: item, action: 'put', handler: 'update', parameterSet: 'update',
      pathParameters: itemParams, queryParameters: q('update'), requestBody: { shape: r.shape, required: true, patch: false },
      responses: [200, 201].map((code) => ({ code, shape: r.shape })), allNamespaces: false, description: `replace the specified ${r.kind}`,
    },
    {
      operationId: `patch${gv}${nsWord}${r.kind}`, method: 'PATCH', path: item, action: 'patch', handler: 'patch', parameterSet: 'patch',
      pathParameters: itemParams, queryParameters: q('patch'), requestBody: { shape: patchShape, required: true, patch: true },
      responses: [200, 201].map((code) => ({ code, shape: r.shape })), allNamespaces: false, description: `partially update the specified ${r.kind}`,
    },
    {
      operationId: `delete${gv}${nsWord}${r.kind}`, method: 'DELETE', path: item, action: 'delete', handler: 'delete', parameterSet: 'delete',
      pathParameters: itemParams, queryParameters: q('delete'), requestBody: { shape: 'DeleteOptions', required: false, patch: false },
      responses: [200, 202].map((code) => ({ code, shape: deleteShape })), allNamespaces: false, description: `delete a ${r.kind}`,
    },
    {
      operationId: `delete${gv}Collection${nsWord}${r.kind}`, method: 'DELETE', path: collection, action: 'deletecollection',
      handler: 'deleteCollection', parameterSet: 'deletecollection', pathParameters: scopeParams, queryParameters: q('deletecollection'),
      requestBody: { shape: 'DeleteOptions', required: false, patch: false }, responses: [{ code: 200, shape: 'Status' }],
      allNamespaces: false, description: `delete collection of ${r.kind}`,
    },
    {
      operationId: `watch${gv}${nsWord}${r.kind}List`, method: 'GET', path: watchCollection, action: 'watchlist', handler: 'watch',
      parameterSet: 'list', pathParameters: scopeParams, queryParameters: watchQuery, responses: [{ code: 200, shape: 'WatchEvent' }],
      allNamespaces: false, deprecated: true,
      description: `watch individual changes to a list of ${r.kind}. deprecated: use the 'watch' parameter with a list operation instead.`,
    },
    {
      operationId: `watch${gv}${nsWord}${r.kind}`, method: 'GET', path: `${watchCollection}/{name}`, action: 'watch', handler: 'watch',
      parameterSet: 'list', pathParameters: itemParams, queryParameters: watchQuery, responses: [{ code: 200, shape: 'WatchEvent' }],
      allNamespaces: false, deprecated: true,
      description: `watch changes to an object of kind ${r.kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`,
    },
  ];
  if (ns) {
    ops.push(
      {
        operationId: `list${gv}${r.kind}ForAllNamespaces`, method: 'GET', path: `${root}/${r.plural}`, action: 'list', handler: 'list',
        parameterSet: 'list', pathParameters: [], queryParameters: listQuery, responses: [{ code: 200, shape: listShapeOf(r) }],
        allNamespaces: true, description: `list or watch objects of kind ${r.kind} across all namespaces`,
      },
      {
        operationId: `watch${gv}${r.kind}ListForAllNamespaces`, method: 'GET', path: `${root}/watch/${r.plural}`, action: 'watchlist',
        handler: 'watch', parameterSet: 'list', pathParameters: [], queryParameters: watchQuery,
        responses: [{ code: 200, shape: 'WatchEvent' }], allNamespaces: true, deprecated: true,
        description: `watch individual changes to a list of ${r.kind} across all namespaces. deprecated: use the 'watch' parameter with a list operation instead.`,
      },
    );
  }
  if (r.subresources.includes('status')) {
    const status = `${item}/status`;
    ops.push(
      {
        operationId: `read${gv}${nsWord}${r.kind}Status`, method: 'GET', path: status, action: 'get', handler: 'getStatus', parameterSet: 'get',
        pathParameters: itemParams, queryParameters: q('get'), responses: [{ code: 200, shape: r.shape }], subresource: 'status',
        allNamespaces: false, description: `read status of the specified ${r.kind}`,
      },
      {
        operationId: `replace${gv}${nsWord}${r.kind}Status`, method: 'PUT', path: status, action: 'put', handler: 'updateStatus',
        parameterSet: 'update', pathParameters: itemParams, queryParameters: q('update'),
        requestBody: { shape: r.shape, required: true, patch: false }, responses: [200, 201].map((code) => ({ code, shape: r.shape })),
        subresource: 'status', allNamespaces: false, description: `replace status of the specified ${r.kind}`,
      },
      {
        operationId: `patch${gv}${nsWord}${r.kind}Status`, method: 'PATCH', path: status, action: 'patch', handler: 'patchStatus',
        parameterSet: 'patch', pathParameters: itemParams, queryParameters: q('patch'),
        requestBody: { shape: patchShape, required: true, patch: true }, responses: [200, 201].map((code) => ({ code, shape: r.shape })),
        subresource: 'status', allNamespaces: false, description: `partially update status of the specified ${r.kind}`,
      },
    );
  }
  if (r.subresources.includes('finalize')) {
    // upstream's FinalizeREST is an Updater only: PUT, no get or patch
    ops.push({
      operationId: `replace${gv}${nsWord}${r.kind}Finalize`, method: 'PUT', path: `${item}/finalize`, action: 'put', handler: 'updateFinalize',
      parameterSet: 'update', pathParameters: itemParams, queryParameters: q('update'),
      requestBody: { shape: r.shape, required: true, patch: false }, responses: [200, 201].map((code) => ({ code, shape: r.shape })),
      subresource: 'finalize', allNamespaces: false, description: `replace finalize of the specified ${r.kind}`,
    });
  }
  const omitted = new Set(r.omitVerbs ?? []);
  // omitVerbs names verbs of the main resource; a subresource keeps its own
  return omitted.size ? ops.filter((op) => op.subresource !== undefined || !omitted.has(VERB_OF_ACTION[op.action])) : ops;
}

/** Media types a PATCH accepts; strategic merge patch only for built-in types. */
export const PATCH_MEDIA_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
] as const;
