// The static site handler: files under the folder with their content types and ETags, folders
// redirected to their slash, and every way out of the folder refused.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../errors/api-error.ts';
import { safeSegments, StaticSite } from './docs-static.ts';

let base: string;
let server: Server;
let port: number;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw request target (not normalized by a URL parser, as an attacker would send it). */
function get(target: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: target, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'docs-static-'));
  const site = join(base, 'site');
  mkdirSync(join(site, 'core'), { recursive: true });
  writeFileSync(join(site, 'index.html'), '<!DOCTYPE html><title>index</title>');
  writeFileSync(join(site, 'docs.css'), 'body{}');
  writeFileSync(join(site, 'docs.js'), 'void 0;');
  writeFileSync(join(site, 'core', 'persistentvolume_v1.html'), '<h1>PersistentVolume</h1>');
  writeFileSync(join(site, 'blob.bin'), 'x');
  writeFileSync(join(base, 'secret.txt'), 'outside the site');
  symlinkSync(join(base, 'secret.txt'), join(site, 'escape.txt'));
  const docs = new StaticSite('/docs', site);
  server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (!docs.owns(path)) return void res.writeHead(418).end();
    docs.serve(req, res, path).catch((e: unknown) => res.writeHead(e instanceof ApiError ? e.code : 500).end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(base, { recursive: true, force: true });
});

describe('StaticSite', () => {
  it.each([
    { target: '/docs/', status: 200, type: 'text/html; charset=utf-8', body: '<title>index</title>' },
    { target: '/docs/index.html', status: 200, type: 'text/html; charset=utf-8', body: 'index' },
    { target: '/docs/docs.css', status: 200, type: 'text/css; charset=utf-8', body: 'body{}' },
    { target: '/docs/docs.js', status: 200, type: 'text/javascript; charset=utf-8', body: 'void 0;' },
    { target: '/docs/core/persistentvolume_v1.html', status: 200, type: 'text/html; charset=utf-8', body: 'PersistentVolume' },
    { target: '/docs/core/persistentvolume%5Fv1.html', status: 200, type: 'text/html; charset=utf-8', body: 'PersistentVolume' },
    { target: '/docs/blob.bin', status: 200, type: 'application/octet-stream', body: 'x' },
    { target: '/docs/missing.html', status: 404, body: '404 page not found' },
    { target: '/docs/../secret.txt', status: 404, body: '404 page not found' },
    { target: '/docs/core/../../secret.txt', status: 404, body: '404 page not found' },
    { target: '/docs/%2e%2e/secret.txt', status: 404, body: '404 page not found' },
    { target: '/docs/..%2fsecret.txt', status: 404, body: '404 page not found' },
    { target: '/docs/..%5csecret.txt', status: 404, body: '404 page not found' },
    { target: '/docs/index.html%00.css', status: 404, body: '404 page not found' },
    { target: '/docs/%E0%A4%A', status: 404, body: '404 page not found' },
    { target: '/docs//etc/passwd', status: 404, body: '404 page not found' },
    { target: '/docs/escape.txt', status: 404, body: '404 page not found' },
  ])('GET $target: $status', async ({ target, status, type, body }) => {
    const r = await get(target);
    expect(r.status).toBe(status);
    expect(r.body).toContain(body);
    if (type) {
      expect(r.headers['content-type']).toBe(type);
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['content-security-policy']).toContain("default-src 'self'");
    }
  });

  it.each([
    { target: '/docs', location: '/docs/' },
    { target: '/docs/core', location: '/docs/core/' },
  ])('GET $target redirects to $location', async ({ target, location }) => {
    const r = await get(target);
    expect(r.status).toBe(301);
    expect(r.headers.location).toBe(location);
  });

  it('answers If-None-Match with 304 while the content is unchanged, and a new ETag once it changes', async () => {
    const first = await get('/docs/docs.css');
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect((await get('/docs/docs.css', { 'If-None-Match': etag })).status).toBe(304);
    writeFileSync(join(base, 'site', 'docs.css'), 'body{color:red}');
    const changed = await get('/docs/docs.css', { 'If-None-Match': etag });
    expect(changed.status).toBe(200);
    expect(changed.body).toBe('body{color:red}');
    expect(changed.headers.etag).not.toBe(etag);
  });

  it('answers HEAD without a body and refuses other methods', async () => {
    const head = await get('/docs/docs.js', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe('7');
    expect(head.body).toBe('');
    expect((await get('/docs/docs.js', {}, 'POST')).status).toBe(405);
  });

  it.each([
    { rest: 'a/b.html', segments: ['a', 'b.html'] },
    { rest: 'a%20b.html', segments: ['a b.html'] },
    { rest: 'a/../b', segments: null },
    { rest: 'a/./b', segments: null },
    { rest: '%2e%2e', segments: null },
    { rest: 'a%2Fb', segments: null },
    { rest: 'a//b', segments: null },
    { rest: '%ZZ', segments: null },
  ])('safeSegments($rest)', ({ rest, segments }) => {
    expect(safeSegments(rest)).toEqual(segments);
  });
});
