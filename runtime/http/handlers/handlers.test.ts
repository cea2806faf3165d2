// Every resource handler in process, over a server assembled from out/ with memory storage and
// real HTTP on 127.0.0.1: one row per handler and case, each request made after the rows before it
// (the table is a script), with the status, the body fields and the Warning headers expected.

import type { Server as HttpServer } from 'node:http';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../../storage/index.ts';
import { TokenAuthenticator } from '../auth.ts';
import { buildApiServer, listen, loadGenerated, type BuiltServer } from '../bootstrap.ts';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const TOKEN = 'handlers-token';
const CMS = '/api/v1/namespaces/default/configmaps';

interface Row {
  handler: string;
  name: string;
  method: string;
  path: string;
  body?: unknown;
  contentType?: string;
  accept?: string;
  status: number;
  /** Fields the JSON answer must contain. */
  want?: Record<string, unknown>;
  /** Substrings of the answer's text (a watch stream). */
  contains?: string[];
  /** Substrings of the Warning header. */
  warnings?: string[];
}

const rows: Row[] = [
  { handler: 'create', name: 'creates', method: 'POST', path: CMS, body: { metadata: { name: 'a' }, data: { k: 'v' } }, status: 201, want: { kind: 'ConfigMap', data: { k: 'v' } } },
  { handler: 'create', name: 'warns of an unknown field', method: 'POST', path: CMS, body: { metadata: { name: 'b' }, bogus: 1 }, status: 201, warnings: ['unknown field \\"bogus\\"'] },
  { handler: 'create', name: 'a bad dryRun value is 422', method: 'POST', path: `${CMS}?dryRun=Some`, body: { metadata: { name: 'c' } }, status: 422, want: { reason: 'Invalid' } },
  { handler: 'get', name: 'gets', method: 'GET', path: `${CMS}/a`, status: 200, want: { data: { k: 'v' } } },
  { handler: 'get', name: 'a Table', method: 'GET', path: `${CMS}/a`, accept: 'application/json;as=Table;v=v1;g=meta.k8s.io', status: 200, want: { kind: 'Table' } },
  { handler: 'get', name: 'a missing object is 404', method: 'GET', path: `${CMS}/none`, status: 404, want: { reason: 'NotFound' } },
  { handler: 'list', name: 'lists', method: 'GET', path: `${CMS}?limit=1`, status: 200, want: { kind: 'ConfigMapList', metadata: { remainingItemCount: 1 } } },
  { handler: 'watch', name: 'streams the current state until timeoutSeconds', method: 'GET', path: `${CMS}?watch=1&timeoutSeconds=1`, status: 200, contains: ['{"type":"ADDED","object":{"kind":"ConfigMap"'] },
  { handler: 'list', name: 'a bad limit is 400', method: 'GET', path: `${CMS}?limit=x`, status: 400 },
  { handler: 'update', name: 'updates', method: 'PUT', path: `${CMS}/a`, body: { metadata: { name: 'a' }, data: { k: 'w' } }, status: 200, want: { data: { k: 'w' } } },
  { handler: 'update', name: 'a stale resourceVersion is 409', method: 'PUT', path: `${CMS}/a`, body: { metadata: { name: 'a', resourceVersion: '1' } }, status: 409, want: { reason: 'Conflict' } },
  { handler: 'patch', name: 'merge patch', method: 'PATCH', path: `${CMS}/a`, body: { data: { m: '1' } }, contentType: 'application/merge-patch+json', status: 200, want: { data: { k: 'w', m: '1' } } },
  { handler: 'patch', name: 'JSON patch', method: 'PATCH', path: `${CMS}/a`, body: [{ op: 'add', path: '/data/j', value: '2' }], contentType: 'application/json-patch+json', status: 200, want: { data: { k: 'w', m: '1', j: '2' } } },
  { handler: 'patch', name: 'strategic merge patch', method: 'PATCH', path: `${CMS}/a`, body: { data: { s: '3' } }, contentType: 'application/strategic-merge-patch+json', status: 200, want: { data: { k: 'w', m: '1', j: '2', s: '3' } } },
  { handler: 'patch', name: 'an unsupported patch type is 415', method: 'PATCH', path: `${CMS}/a`, body: {}, contentType: 'text/plain', status: 415 },
  { handler: 'patch', name: 'force without apply is 422', method: 'PATCH', path: `${CMS}/a?force=true`, body: {}, contentType: 'application/merge-patch+json', status: 422 },
  {
    handler: 'apply',
    name: 'creates a missing object (201)',
    method: 'PATCH',
    path: `${CMS}/applied?fieldManager=t`,
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { x: '1' } },
    contentType: 'application/apply-patch+yaml',
    status: 201,
    want: { data: { x: '1' } },
  },
  {
    handler: 'apply',
    name: 'updates it (200)',
    method: 'PATCH',
    path: `${CMS}/applied?fieldManager=t`,
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { x: '2' } },
    contentType: 'application/apply-patch+yaml',
    status: 200,
    want: { data: { x: '2' } },
  },
  {
    handler: 'apply',
    name: 'a conflict with another manager is 409',
    method: 'PATCH',
    path: `${CMS}/applied?fieldManager=other`,
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { x: '3' } },
    contentType: 'application/apply-patch+yaml',
    status: 409,
  },
  { handler: 'delete', name: 'deletes', method: 'DELETE', path: `${CMS}/b`, status: 200, want: { kind: 'Status', status: 'Success' } },
  { handler: 'delete', name: 'a bad propagation policy is 422', method: 'DELETE', path: `${CMS}/a?propagationPolicy=Sometimes`, status: 422 },
  { handler: 'deleteCollection', name: 'deletes the selected', method: 'DELETE', path: `${CMS}?fieldSelector=metadata.name%3Dapplied`, status: 200, want: { kind: 'ConfigMapList' } },
  { handler: 'list', name: 'what is left', method: 'GET', path: CMS, status: 200, want: { items: [expect.objectContaining({ metadata: expect.objectContaining({ name: 'a' }) })] } },
];

let storage: Storage;
let built: BuiltServer;
let server: HttpServer;
let base: string;

beforeAll(async () => {
  storage = openStorage({ kind: 'memory' });
  built = await buildApiServer(await loadGenerated(join(ROOT, 'out')), {
    storage,
    authenticator: TokenAuthenticator.fromCsv(`${TOKEN},admin,admin,"system:masters"\n`),
    customResources: false,
    storageVersionMigration: false,
  });
  let port: number;
  ({ server, port } = await listen(built.api, { port: 0, address: '127.0.0.1' }));
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  await built.stop();
  server.closeAllConnections();
  server.close();
  await storage.close();
});

describe('resource handlers', () => {
  it.each(rows)('$handler: $name', async (row) => {
    const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}`, accept: row.accept ?? 'application/json' };
    if (row.body !== undefined) headers['content-type'] = row.contentType ?? 'application/json';
    const res = await fetch(base + row.path, { method: row.method, headers, body: row.body === undefined ? undefined : JSON.stringify(row.body), signal: AbortSignal.timeout(10_000) });
    const text = await res.text();
    expect(res.status, text).toBe(row.status);
    if (row.want) expect(JSON.parse(text)).toMatchObject(row.want);
    for (const c of row.contains ?? []) expect(text).toContain(c);
    for (const w of row.warnings ?? []) expect(res.headers.get('warning') ?? '').toContain(w);
  });
});
