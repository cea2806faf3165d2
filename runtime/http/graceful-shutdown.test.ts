// The shutdown sequence in process, on a real listener: how requests are answered once the server
// stops accepting (upstream's WithWaitGroup 503 and WithRetryAfter 429, probes exempt), watches ended
// cleanly over a grace period, and in-flight requests bounded by the request timeout.

import { request, type IncomingHttpHeaders } from 'node:http';
import type { Server as HttpServer } from 'node:http';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from '../storage/index.ts';
import { TokenAuthenticator } from './auth.ts';
import { buildApiServer, listen, loadGenerated, type BuiltServer } from './bootstrap.ts';
import { shutDownGracefully } from './graceful-shutdown.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const TOKEN = 'graceful-token';

let storage: Storage;
let built: BuiltServer;
let server: HttpServer;
let port: number;

beforeEach(async () => {
  storage = openStorage({ kind: 'memory' });
  built = await buildApiServer(await loadGenerated(join(ROOT, 'out')), {
    storage,
    authenticator: TokenAuthenticator.fromCsv(`${TOKEN},admin,admin,"system:masters"\n`),
    admission: false,
    customResources: false,
    storageVersionMigration: false,
  });
  ({ server, port } = await listen(built.api, { port: 0, address: '127.0.0.1' }));
});

afterEach(async () => {
  built.stop();
  server.closeAllConnections();
  server.close();
  await storage.close();
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The response ended normally (its last chunk arrived), rather than being cut. */
  ended: boolean;
}

function send(method: string, path: string, o: { token?: boolean; headers?: Record<string, string>; body?: string; holdBody?: boolean } = {}): { answer: Promise<Answer>; finish: () => void } {
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (o.token !== false) headers.Authorization = `Bearer ${TOKEN}`;
  const body = o.body === undefined ? undefined : Buffer.from(o.body);
  if (body) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(body.length);
  }
  let finish = (): void => undefined;
  const answer = new Promise<Answer>((res) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (r) => {
      let text = '';
      r.on('data', (c: Buffer) => (text += c.toString()));
      r.on('end', () => res({ status: r.statusCode ?? 0, headers: r.headers, text, ended: true }));
      r.on('error', () => res({ status: r.statusCode ?? 0, headers: r.headers, text, ended: false }));
    });
    req.on('error', (e: NodeJS.ErrnoException) => res({ status: 0, headers: {}, text: e.code ?? e.message, ended: false }));
    if (body && o.holdBody) {
      const half = Math.floor(body.length / 2);
      req.write(body.subarray(0, half));
      finish = () => req.end(body.subarray(half));
    } else req.end(body);
  });
  return { answer, finish };
}

const get = (path: string, o: { token?: boolean; headers?: Record<string, string> } = {}): Promise<Answer> => send('GET', path, o).answer;
const settle = (ms = 150): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('requests once the server stops accepting', () => {
  const cases: { mode: 'unavailable' | 'retry-after'; path: string; token?: boolean; userAgent?: string; want: { status: number; retryAfter?: string; body?: string | object } }[] = [
    { mode: 'unavailable', path: '/api/v1/namespaces', want: { status: 503, retryAfter: '1', body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'apiserver is shutting down', reason: 'ServiceUnavailable', code: 503 } } },
    { mode: 'unavailable', path: '/api/v1/namespaces', token: false, want: { status: 503, retryAfter: '1' } },
    { mode: 'unavailable', path: '/api/v1/namespaces?watch=1', want: { status: 503, retryAfter: '1' } },
    { mode: 'unavailable', path: '/version', want: { status: 503, retryAfter: '1' } },
    { mode: 'unavailable', path: '/livez', token: false, want: { status: 200, body: 'ok' } },
    { mode: 'unavailable', path: '/healthz/ping', token: false, want: { status: 200, body: 'ok' } },
    { mode: 'unavailable', path: '/readyz', token: false, want: { status: 500 } },
    { mode: 'unavailable', path: '/api/v1/namespaces', userAgent: 'kube-apiserver/v1.33.0', want: { status: 200 } },
    { mode: 'retry-after', path: '/api/v1/namespaces', want: { status: 429, retryAfter: '5', body: 'The apiserver is shutting down, please try again later.\n' } },
    { mode: 'retry-after', path: '/apis/storage.cluster.io/v1/storageclasses?watch=true', want: { status: 429, retryAfter: '5' } },
    { mode: 'retry-after', path: '/livez', token: false, want: { status: 200, body: 'ok' } },
  ];
  for (const c of cases) {
    it(`${c.mode}: ${c.path}${c.token === false ? ' (no credentials)' : ''}${c.userAgent ? ` (${c.userAgent})` : ''}`, async () => {
      built.api.lifecycle.stopAccepting(c.mode);
      const r = await get(c.path, { token: c.token, headers: c.userAgent ? { 'User-Agent': c.userAgent } : {} });
      const got: { status: number; retryAfter?: string; body?: string | object } = { status: r.status };
      if (c.want.retryAfter !== undefined) got.retryAfter = r.headers['retry-after'];
      if (c.want.body !== undefined) got.body = typeof c.want.body === 'string' ? r.text : JSON.parse(r.text);
      expect(got).toEqual(c.want);
      expect(r.headers.connection).toBe('close');
    });
  }
});

describe('shutDownGracefully', () => {
  it('ends every watch cleanly over the grace period, then stops listening', async () => {
    const watches = ['/api/v1/namespaces?watch=1', '/api/v1/namespaces?watch=true&allowWatchBookmarks=true', '/apis/storage.cluster.io/v1/storageclasses?watch=1'].map((p) => get(p));
    await settle();
    expect(built.api.lifecycle.activeWatches).toBe(3);
    const t0 = Date.now();
    const result = await shutDownGracefully(server, built.api.lifecycle, { delayMs: 0, watchGraceMs: 1000, sendRetryAfter: false, requestTimeoutMs: 5000 });
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(result).toEqual({ requestsDrained: true, watchesClosed: true });
    expect((await Promise.all(watches)).map((w) => ({ status: w.status, ended: w.ended }))).toEqual(Array(3).fill({ status: 200, ended: true }));
    expect((await get('/livez', { token: false })).text).toBe('ECONNREFUSED');
  });

  it('lets an in-flight request finish with its answer, closing its connection', async () => {
    const slow = send('POST', '/api/v1/namespaces', { body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'slow' } }), holdBody: true });
    await settle();
    expect(built.api.lifecycle.inFlight).toBe(1);
    const done = shutDownGracefully(server, built.api.lifecycle, { delayMs: 0, watchGraceMs: 0, sendRetryAfter: false, requestTimeoutMs: 5000 });
    await settle();
    slow.finish();
    const r = await slow.answer;
    expect({ status: r.status, kind: JSON.parse(r.text).kind, connection: r.headers.connection }).toEqual({ status: 201, kind: 'Namespace', connection: 'close' });
    expect(await done).toEqual({ requestsDrained: true, watchesClosed: true });
  });

  it('waits for an in-flight request no longer than the request timeout, then closes its connection', async () => {
    const stuck = send('POST', '/api/v1/namespaces', { body: JSON.stringify({ metadata: { name: 'never' } }), holdBody: true });
    await settle();
    const t0 = Date.now();
    const result = await shutDownGracefully(server, built.api.lifecycle, { delayMs: 0, watchGraceMs: 0, sendRetryAfter: false, requestTimeoutMs: 300 });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    expect(result.requestsDrained).toBe(false);
    expect((await stuck.answer).ended).toBe(false);
  });

  it('fails /readyz during the shutdown delay while everything else is served', async () => {
    const done = shutDownGracefully(server, built.api.lifecycle, { delayMs: 600, watchGraceMs: 0, sendRetryAfter: false, requestTimeoutMs: 5000 });
    await settle();
    const probes = await Promise.all(['/readyz?verbose', '/livez', '/api/v1/namespaces'].map((p) => get(p)));
    expect(probes.map((p) => p.status)).toEqual([500, 200, 200]);
    expect(probes[0].text).toBe('[+]ping ok\n[+]storage ok\n[-]shutdown failed: reason withheld\nreadyz check failed\n');
    await done;
  });
});
