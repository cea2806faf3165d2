// `omitVerbs` and the `finalize` subresource (spec/README.md "Operations are derived"): the derived
// operations of a resource lose exactly the omitted verbs of the main resource, and every output
// made from them follows: routes, OpenAPI v2 and v3, the reference page. Namespace is upstream's
// case: no DeleteCollection, and PUT /finalize.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSpec } from '../../generators/model/load.ts';
import type { Model, Resource, Verb } from '../../generators/model/model.ts';
import { operationsOf } from '../../generators/model/operations.ts';
import { allRoutes } from '../../out/routes/index.ts';
import type { HandlerName } from '../../runtime/api/operation.ts';

const root = join(import.meta.dirname, '..', '..');
const out = (p: string): string => readFileSync(join(root, 'out', p), 'utf8');
const handlers = new Proxy({}, { get: (_t, name) => String(name) }) as Record<HandlerName, string>;

let model: Model;
beforeAll(async () => {
  model = (await loadSpec(root)).model;
});
const resource = (kind: string): Resource => model.resources.find((r) => r.kind === kind && r.group === '') as Resource;
const signatures = (r: Resource): string[] => operationsOf(model, r).map((op) => `${op.method} ${op.path}`);

// ConfigMap (namespaced, no subresources) with each verb omitted: the operations that go, by method and path.
const CM = '/api/v1/namespaces/{namespace}/configmaps';
const omissionCases: { omit: Verb[]; gone: string[] }[] = [
  { omit: ['deletecollection'], gone: [`DELETE ${CM}`] },
  { omit: ['watch'], gone: ['GET /api/v1/watch/namespaces/{namespace}/configmaps', 'GET /api/v1/watch/namespaces/{namespace}/configmaps/{name}', 'GET /api/v1/watch/configmaps'] },
  { omit: ['list'], gone: [`GET ${CM}`, 'GET /api/v1/configmaps'] },
  { omit: ['create', 'delete'], gone: [`POST ${CM}`, `DELETE ${CM}/{name}`] },
  { omit: ['patch', 'update'], gone: [`PUT ${CM}/{name}`, `PATCH ${CM}/{name}`] },
];

describe('omitVerbs', () => {
  it.each(omissionCases)('omitting $omit takes out $gone', ({ omit, gone }) => {
    const r = resource('ConfigMap');
    const all = signatures(r);
    const kept = signatures({ ...r, omitVerbs: omit });
    expect(all.filter((s) => !kept.includes(s)).sort()).toEqual([...gone].sort());
    expect(kept.every((s) => all.includes(s))).toBe(true);
  });

  it('keeps the subresource operations of a resource whose main verbs are omitted', () => {
    const r = resource('PersistentVolumeClaim');
    const kept = signatures({ ...r, omitVerbs: ['update', 'patch', 'get'] });
    expect(kept.filter((s) => s.endsWith('/status'))).toHaveLength(3);
  });

  it('Namespace omits deletecollection, and only Namespace', () => {
    expect(model.resources.filter((r) => r.omitVerbs?.length).map((r) => [r.kind, r.omitVerbs])).toEqual([['Namespace', ['deletecollection']]]);
    for (const r of model.resources) {
      const hasCollectionDelete = operationsOf(model, r).some((op) => op.action === 'deletecollection');
      expect(hasCollectionDelete, r.kind).toBe(r.kind !== 'Namespace');
    }
  });
});

describe('the outputs follow (Namespace)', () => {
  it('routes: no DELETE on the collection, PUT on /finalize bound to updateFinalize', () => {
    const table = allRoutes(handlers).find((t) => t.resource.kind === 'Namespace' && t.resource.group === '')!;
    const routes = table.routes.map((r) => `${r.method} ${r.path} -> ${r.handler}${r.subresource ? ` (${r.subresource})` : ''}`);
    expect(routes).not.toContain('DELETE /api/v1/namespaces -> deleteCollection');
    expect(routes.filter((r) => r.includes('/finalize'))).toEqual(['PUT /api/v1/namespaces/{name}/finalize -> updateFinalize (finalize)']);
    expect(table.resource.subresources).toEqual(['status', 'finalize']);
  });

  it.each(['openapi/v2/swagger.json', 'openapi/v2/api/v1.json'])('%s: no delete on /api/v1/namespaces, finalize is a put', (file) => {
    const paths = JSON.parse(out(file)).paths as Record<string, Record<string, { operationId?: string; parameters?: unknown[] }>>;
    expect(Object.keys(paths['/api/v1/namespaces']).sort()).toEqual(['get', 'parameters', 'post']);
    expect(Object.keys(paths['/api/v1/namespaces/{name}/finalize']).sort()).toEqual(['parameters', 'put']);
    expect(paths['/api/v1/namespaces/{name}/finalize'].put.operationId).toBe('replaceCoreV1NamespaceFinalize');
    expect(paths['/api/v1/namespaces/{name}/finalize'].put.parameters).toEqual([
      { name: 'body', in: 'body', required: true, schema: { $ref: '#/definitions/io.cluster.api.core.v1.Namespace' } },
      { $ref: '#/parameters/dryRun' }, { $ref: '#/parameters/fieldManager' }, { $ref: '#/parameters/fieldValidation' },
    ]);
    // every other collection keeps its DELETE
    expect(paths['/api/v1/namespaces/{namespace}/configmaps'].delete.operationId).toBe('deleteCoreV1CollectionNamespacedConfigMap');
  });

  it.each(['openapi/v3/api/v1.json', 'openapi/v3/all.json'])('%s: no delete on /api/v1/namespaces, finalize is a put', (file) => {
    const paths = JSON.parse(out(file)).paths as Record<string, Record<string, { operationId?: string; 'x-cluster-action'?: string }>>;
    expect(Object.keys(paths['/api/v1/namespaces']).sort()).toEqual(['get', 'parameters', 'post']);
    expect(paths['/api/v1/namespaces/{name}/finalize'].put).toMatchObject({ operationId: 'replaceCoreV1NamespaceFinalize', 'x-cluster-action': 'put' });
  });

  it('the reference page lists the finalize operation and what is not served', () => {
    const page = out('docs/core/namespace_v1.html');
    expect(page).toContain('<dt>not served</dt><dd><code>deletecollection</code></dd>');
    expect(page).toContain('<td><code>PUT</code></td><td><code>/api/v1/namespaces/{name}/finalize</code></td><td>put finalize</td>');
    expect(page).not.toContain('delete collection of Namespace');
  });
});
