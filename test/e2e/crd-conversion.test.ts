// CRD conversion with strategy Webhook against a real server process and a real HTTPS conversion
// webhook on 127.0.0.1 (verified against the CRD's caBundle). The webhook renames a field between
// the versions: v1 `spec.hostPort` "host:port" ↔ v2 `spec.host` + `spec.port`. Reads convert from
// the version an object was stored at, writes to the storage version, lists send one review,
// watches convert per event; switching the storage version keeps old objects readable; bad
// webhook answers give upstream's errors.

import type { ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePKI, startWebhookServer, type SeenRequest, type TestPKI, type WebhookServer } from '../../runtime/admission/webhook-fixture.ts';
import { eventually, TestServer } from './harness.ts';

const GROUP = 'conv.example.cluster.io';
const CRDS = '/apis/apiextensions.cluster.io/v1/customresourcedefinitions';
const NAME = `backends.${GROUP}`;
const NS = 'convtest';
const V1 = `/apis/${GROUP}/v1/namespaces/${NS}/backends`;
const V2 = `/apis/${GROUP}/v2/namespaces/${NS}/backends`;
const SUBJECT_V1 = `conversion webhook for ${GROUP}/v1, Kind=Backend`;

type Obj = Record<string, unknown>;
type Mode = 'ok' | 'wrong-uid' | 'wrong-count' | 'changed-name' | 'failed';

/** The conversion the webhook does: v1 hostPort ↔ v2 host + port. */
function convert(o: Obj, desired: string): Obj {
  const spec = (o.spec ?? {}) as Obj;
  let next: Obj = spec;
  if (desired === `${GROUP}/v2` && typeof spec.hostPort === 'string') {
    const [host, port] = spec.hostPort.split(':');
    const { hostPort: _h, ...rest } = spec;
    next = { ...rest, host, port: Number(port) };
  } else if (desired === `${GROUP}/v1` && typeof spec.host === 'string') {
    const { host, port, ...rest } = spec;
    next = { ...rest, hostPort: `${String(host)}:${String(port)}` };
  }
  return { ...o, apiVersion: desired, spec: next };
}

function send(res: ServerResponse, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function crdBody(o: { storage: 'v1' | 'v2'; url: string; caBundle: string; conversion?: Obj }): Obj {
  const version = (name: 'v1' | 'v2', spec: Obj): Obj => ({
    name,
    served: true,
    storage: o.storage === name,
    schema: {
      openAPIV3Schema: {
        type: 'object',
        properties: {
          spec: { type: 'object', properties: spec },
          status: { type: 'object', properties: { ready: { type: 'boolean' } } },
        },
      },
    },
    subresources: { status: {} },
  });
  return {
    apiVersion: 'apiextensions.cluster.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: NAME },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: 'backends', singular: 'backend', kind: 'Backend' },
      versions: [
        version('v1', { hostPort: { type: 'string' } }),
        version('v2', { host: { type: 'string' }, port: { type: 'integer', minimum: 1 } }),
      ],
      conversion: o.conversion ?? { strategy: 'Webhook', webhook: { clientConfig: { url: o.url, caBundle: o.caBundle }, conversionReviewVersions: ['v1'] } },
    },
  };
}

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('CRD conversion webhook (memory)', () => {
  let s: TestServer;
  let pki: TestPKI;
  let hook: WebhookServer;
  let mode: Mode = 'ok';
  const reviews = (): SeenRequest[] => hook.seen.filter((r) => r.path === '/convert');
  /**
   * The object names of each review to v2 sent after the first `from`: the garbage collector's informer
   * converts too (to the version it watches, and again on a relist), so a test's own reviews are told
   * apart by what they ask for and carry rather than by their count.
   */
  const reviewedNames = (from: number): string[][] =>
    reviews()
      .slice(from)
      .map((r) => r.review.request as { desiredAPIVersion: string; objects: Obj[] })
      .filter((req) => req.desiredAPIVersion === `${GROUP}/v2`)
      .map((req) => req.objects.map((o) => String((o.metadata as Obj).name)));
  const lastRequest = (): { uid: string; desiredAPIVersion: string; objects: Obj[] } => {
    const all = reviews();
    return all[all.length - 1].review.request as { uid: string; desiredAPIVersion: string; objects: Obj[] };
  };

  /** Replaces the CRD's spec (fresh resourceVersion each time) and waits until `ready` holds. */
  async function updateCRD(o: Parameters<typeof crdBody>[0], ready: () => Promise<boolean>): Promise<void> {
    const cur = await s.get(`${CRDS}/${NAME}`);
    const body = crdBody(o);
    (body.metadata as Obj).resourceVersion = cur.json.metadata.resourceVersion;
    const put = await s.put(`${CRDS}/${NAME}`, body);
    expect(put.status, put.text).toBe(200);
    await eventually(ready, 15_000, 100);
  }

  beforeAll(async () => {
    pki = makePKI();
    hook = await startWebhookServer(pki);
    hook.handlers.set('/convert', (review, _req, res) => {
      const req = review.request as { uid: string; desiredAPIVersion: string; objects: Obj[] };
      const converted = req.objects.map((o) => convert(o, req.desiredAPIVersion));
      const response: Obj = { uid: req.uid, result: { status: 'Success' }, convertedObjects: converted };
      if (mode === 'wrong-uid') response.uid = 'not-the-request-uid';
      if (mode === 'wrong-count') response.convertedObjects = [...converted, ...converted];
      if (mode === 'changed-name') response.convertedObjects = converted.map((o) => ({ ...o, metadata: { ...(o.metadata as Obj), name: 'renamed' } }));
      if (mode === 'failed') response.result = { status: 'Failure', message: 'port 0 is not allowed' };
      send(res, { apiVersion: review.apiVersion, kind: 'ConversionReview', response });
    });
    s = await TestServer.start('memory');
    expect((await s.post('/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
  }, 90_000);
  afterAll(async () => {
    await s?.stop();
    await hook?.close();
  });

  it('a Webhook CRD without clientConfig is rejected 422', async () => {
    const bad = crdBody({ storage: 'v1', url: '', caBundle: '', conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'] } } });
    const r = await s.post(CRDS, bad);
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toContainEqual({ reason: 'FieldValueRequired', message: 'Required value: required when strategy is set to Webhook', field: 'spec.conversion.webhook.clientConfig' });
  });

  it('creates the CRD (storage v1) and serves both versions', async () => {
    const r = await s.post(CRDS, crdBody({ storage: 'v1', url: hook.url('/convert'), caBundle: pki.caBundle }));
    expect(r.status, r.text).toBe(201);
    await eventually(async () => (await s.get(V2)).status === 200 && (await s.get(V1)).status === 200, 15_000);
  });

  it('create at v1 (no conversion), read at v2 (one review) and at v1 (none)', async () => {
    const c = await s.post(V1, { apiVersion: `${GROUP}/v1`, kind: 'Backend', metadata: { name: 'a', labels: { tier: 'db' } }, spec: { hostPort: 'db.local:5432' } });
    expect(c.status, c.text).toBe(201);
    expect(c.json.spec).toEqual({ hostPort: 'db.local:5432' });
    expect(reviews()).toHaveLength(0);

    const g2 = await s.get(`${V2}/a`);
    expect(g2.status, g2.text).toBe(200);
    expect(g2.json).toMatchObject({ apiVersion: `${GROUP}/v2`, kind: 'Backend', spec: { host: 'db.local', port: 5432 } });
    expect(g2.json.metadata).toMatchObject({ name: 'a', namespace: NS, uid: c.json.metadata.uid, resourceVersion: c.json.metadata.resourceVersion, labels: { tier: 'db' } });
    expect(reviews()).toHaveLength(1);
    const req = lastRequest();
    expect(reviews()[0].review).toMatchObject({ apiVersion: 'apiextensions.cluster.io/v1', kind: 'ConversionReview' });
    expect(reviews()[0].query).toBe('?timeout=30s');
    expect(req.desiredAPIVersion).toBe(`${GROUP}/v2`);
    expect(req.objects).toHaveLength(1);
    expect(req.objects[0]).toMatchObject({ apiVersion: `${GROUP}/v1`, spec: { hostPort: 'db.local:5432' } });

    const g1 = await s.get(`${V1}/a`);
    expect(g1.json.spec).toEqual({ hostPort: 'db.local:5432' });
    expect(reviews()).toHaveLength(1);
  });

  it('create at v2: validated at v2, stored at v1, answered at v2', async () => {
    const invalid = await s.post(V2, { apiVersion: `${GROUP}/v2`, kind: 'Backend', metadata: { name: 'bad' }, spec: { host: 'x', port: 0 } });
    expect(invalid.status).toBe(422);
    expect(invalid.json.message).toContain('spec.port: Invalid value: 0: spec.port in body should be greater than or equal to 1');
    const before = reviews().length;
    expect(before).toBe(1); // validation comes before any conversion

    const c = await s.post(V2, { apiVersion: `${GROUP}/v2`, kind: 'Backend', metadata: { name: 'b' }, spec: { host: 'cache.local', port: 6379 } });
    expect(c.status, c.text).toBe(201);
    expect(c.json).toMatchObject({ apiVersion: `${GROUP}/v2`, spec: { host: 'cache.local', port: 6379 } });
    const sent = reviews().slice(before).map((r) => (r.review.request as { desiredAPIVersion: string }).desiredAPIVersion);
    expect(sent).toEqual([`${GROUP}/v1`, `${GROUP}/v2`]); // to storage, then the answer back
    expect((await s.get(`${V1}/b`)).json.spec).toEqual({ hostPort: 'cache.local:6379' });
  });

  it('list at v2 sends every stored object in one review', async () => {
    const before = reviews().length;
    const l = await s.get(V2);
    expect(l.status, l.text).toBe(200);
    expect(l.json).toMatchObject({ apiVersion: `${GROUP}/v2`, kind: 'BackendList' });
    expect(l.json.items.map((i: Obj) => i.spec)).toEqual([
      { host: 'db.local', port: 5432 },
      { host: 'cache.local', port: 6379 },
    ]);
    expect(reviews().length).toBe(before + 1);
    expect(lastRequest().objects.map((o) => (o.metadata as Obj).name)).toEqual(['a', 'b']);

    const paged = await s.get(`${V2}?limit=1`);
    expect(paged.json.items).toHaveLength(1);
    expect(paged.json.items[0].spec).toEqual({ host: 'db.local', port: 5432 });
    const rest = await s.get(`${V2}?limit=1&continue=${encodeURIComponent(paged.json.metadata.continue)}`);
    expect(rest.json.items[0].spec).toEqual({ host: 'cache.local', port: 6379 });
  });

  it('watch at v2 and update at v2 (stored at v1); /status at v2', async () => {
    const rv = (await s.get(V2)).json.metadata.resourceVersion;
    const w = await s.startWatch(`${V2}?watch=true&resourceVersion=${rv}`, 10_000, (evs) => evs.length >= 2);
    const cur = (await s.get(`${V2}/a`)).json;
    const u = await s.put(`${V2}/a`, { ...cur, spec: { host: 'db.local', port: 6543 } });
    expect(u.status, u.text).toBe(200);
    expect(u.json.spec).toEqual({ host: 'db.local', port: 6543 });
    expect((await s.get(`${V1}/a`)).json.spec).toEqual({ hostPort: 'db.local:6543' });

    const st = await s.put(`${V2}/a/status`, { ...u.json, status: { ready: true } });
    expect(st.status, st.text).toBe(200);
    expect(st.json).toMatchObject({ apiVersion: `${GROUP}/v2`, spec: { host: 'db.local', port: 6543 }, status: { ready: true } });

    const { events } = await w.result;
    expect(events.map((e) => e.type)).toEqual(['MODIFIED', 'MODIFIED']);
    expect(events[0].object).toMatchObject({ apiVersion: `${GROUP}/v2`, kind: 'Backend', metadata: { name: 'a' }, spec: { host: 'db.local', port: 6543 } });
    expect(events[1].object.status).toEqual({ ready: true });
  });

  it('switching the storage version to v2 keeps objects stored at v1 readable', async () => {
    await updateCRD({ storage: 'v2', url: hook.url('/convert'), caBundle: pki.caBundle }, async () => {
      // storage v2: a dry-run create at v2 no longer converts at all
      const before = reviews().length;
      const r = await s.post(`${V2}?dryRun=All`, { apiVersion: `${GROUP}/v2`, kind: 'Backend', metadata: { name: 'probe' }, spec: { host: 'p', port: 1 } });
      return r.status === 201 && reviews().length === before;
    });
    const c = await s.post(V2, { apiVersion: `${GROUP}/v2`, kind: 'Backend', metadata: { name: 'c' }, spec: { host: 'mq.local', port: 5672 } });
    expect(c.status, c.text).toBe(201);

    const before = reviews().length;
    const l = await s.get(V2);
    expect(l.json.items.map((i: Obj) => [(i.metadata as Obj).name, i.spec])).toEqual([
      ['a', { host: 'db.local', port: 6543 }],
      ['b', { host: 'cache.local', port: 6379 }],
      ['c', { host: 'mq.local', port: 5672 }],
    ]);
    // only the objects still stored at v1 were sent
    expect(reviewedNames(before)).toContainEqual(['a', 'b']);
    expect(reviewedNames(before).flat()).not.toContain('c');

    const l1 = await s.get(V1);
    expect(l1.json.items.map((i: Obj) => i.spec)).toEqual([{ hostPort: 'db.local:6543' }, { hostPort: 'cache.local:6379' }, { hostPort: 'mq.local:5672' }]);
    expect(lastRequest().objects.map((o) => (o.metadata as Obj).name)).toEqual(['c']);
  });

  it('an unchanged write rewrites an object stored at the old version (what storage migration does)', async () => {
    const cur = (await s.get(`${V2}/a`)).json;
    const u = await s.put(`${V2}/a`, cur);
    expect(u.status, u.text).toBe(200);
    expect(Number(u.json.metadata.resourceVersion)).toBeGreaterThan(Number(cur.metadata.resourceVersion));
    const before = reviews().length;
    expect((await s.get(`${V2}/a`)).json.spec).toEqual({ host: 'db.local', port: 6543 });
    expect(reviewedNames(before).flat()).not.toContain('a'); // now stored at v2
  });

  describe('bad webhook answers give upstream errors', () => {
    const failure = (message: string): Obj => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });

    it('wrong uid', async () => {
      mode = 'wrong-uid';
      const r = await s.get(`${V2}/b`);
      expect(r.status).toBe(500);
      expect(r.json).toEqual(failure(`${SUBJECT_V1} failed: expected response.uid="${lastRequest().uid}", got "not-the-request-uid"`));
    });

    it('wrong count (get and list)', async () => {
      mode = 'wrong-count';
      const r = await s.get(`${V2}/b`);
      expect(r.json).toEqual(failure(`${SUBJECT_V1} returned 2 objects, expected 1`));
      const l = await s.get(V1);
      expect(l.status).toBe(500);
      expect(l.json.message).toBe(`conversion webhook for ${GROUP}/v2, Kind=Backend returned 4 objects, expected 2`);
    });

    it('changed name', async () => {
      mode = 'changed-name';
      const r = await s.get(`${V2}/b`);
      expect(r.json).toEqual(failure(`${SUBJECT_V1} returned invalid object: must have the same name: b != renamed`));
    });

    it('Failed status, on a read, a write and a watch', async () => {
      mode = 'failed';
      const r = await s.get(`${V2}/b`);
      expect(r.json).toEqual(failure(`${SUBJECT_V1} failed: port 0 is not allowed`));

      const c = await s.post(V1, { apiVersion: `${GROUP}/v1`, kind: 'Backend', metadata: { name: 'd' }, spec: { hostPort: 'x:1' } });
      expect(c.status).toBe(500);
      expect(c.json).toEqual(failure(`${SUBJECT_V1} failed: port 0 is not allowed`));
      expect((await s.get(`${V2}/d`)).status).toBe(404);

      // a watch at v1 must convert every event of objects stored at v2: the failure ends the stream
      mode = 'ok';
      const rv = (await s.get(V1)).json.metadata.resourceVersion;
      mode = 'failed';
      const w = await s.startWatch(`${V1}?watch=true&resourceVersion=${rv}`, 10_000);
      const cur = (await s.get(`${V2}/c`)).json;
      expect((await s.put(`${V2}/c`, { ...cur, spec: { host: 'mq.local', port: 5673 } })).status).toBe(200);
      const { events, ended } = await w.result;
      expect(ended).toBe(true);
      expect(events).toEqual([
        {
          type: 'ERROR',
          object: {
            kind: 'Status',
            apiVersion: 'v1',
            metadata: {},
            status: 'Failure',
            message: `Internal error occurred: conversion webhook for ${GROUP}/v2, Kind=Backend failed: port 0 is not allowed`,
            reason: 'InternalError',
            details: { causes: [{ message: `conversion webhook for ${GROUP}/v2, Kind=Backend failed: port 0 is not allowed` }] },
            code: 500,
          },
        },
      ]);
      mode = 'ok';
    });

    it('unreachable webhook', async () => {
      const port = await closedPort();
      const url = `https://127.0.0.1:${port}/convert`;
      await updateCRD({ storage: 'v2', url, caBundle: pki.caBundle }, async () => (await s.get(`${V2}/b`)).status === 500);
      const r = await s.get(`${V2}/b`);
      expect(r.json).toEqual(failure(`${SUBJECT_V1} failed: Post "${url}?timeout=30s": dial tcp 127.0.0.1:${port}: connect: connection refused`));
    });

    it('a certificate the caBundle does not verify', async () => {
      const other = makePKI();
      await updateCRD({ storage: 'v2', url: hook.url('/convert'), caBundle: other.caBundle }, async () => {
        const r = await s.get(`${V2}/b`);
        return r.status === 500 && String(r.json.message).includes('x509');
      });
      const r = await s.get(`${V2}/b`);
      expect(r.json).toEqual(failure(`${SUBJECT_V1} failed: Post "${hook.url('/convert')}?timeout=30s": tls: failed to verify certificate: x509: certificate signed by unknown authority`));
    });

    it('a good webhook again serves the objects', async () => {
      await updateCRD({ storage: 'v2', url: hook.url('/convert'), caBundle: pki.caBundle }, async () => (await s.get(`${V2}/b`)).status === 200);
      expect((await s.get(`${V2}/b`)).json.spec).toEqual({ host: 'cache.local', port: 6379 });
    });
  });

  it('a validating webhook registered for v1 is sent a v2 write converted to v1 (matchPolicy Equivalent); Exact is not called', async () => {
    hook.handlers.set('/admit', (review, _req, res) => send(res, { apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } }));
    const admitted = (): Obj[] => hook.seen.filter((r) => r.path === '/admit').map((r) => r.review.request as Obj);
    const webhook = (name: string, matchPolicy: string): Obj => ({
      name,
      matchPolicy,
      clientConfig: { url: hook.url('/admit'), caBundle: pki.caBundle },
      rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [GROUP], apiVersions: ['v1'], resources: ['backends'] }],
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
    });
    const vwc = '/apis/admissionregistration.cluster.io/v1/validatingwebhookconfigurations';
    const reg = await s.post(vwc, { metadata: { name: 'backends-v1' }, webhooks: [webhook('equivalent.test.io', 'Equivalent'), webhook('exact.test.io', 'Exact')] });
    expect(reg.status, reg.text).toBe(201);
    try {
      const c = await s.post(V2, { apiVersion: `${GROUP}/v2`, kind: 'Backend', metadata: { name: 'admitted' }, spec: { host: 'adm.local', port: 80 } });
      expect(c.status, c.text).toBe(201);
      const seen = admitted();
      expect(seen).toHaveLength(1); // the Exact webhook matches v1 requests only
      expect(seen[0]).toMatchObject({
        operation: 'CREATE',
        kind: { group: GROUP, version: 'v1', kind: 'Backend' },
        resource: { group: GROUP, version: 'v1', resource: 'backends' },
        requestKind: { group: GROUP, version: 'v2', kind: 'Backend' },
        requestResource: { group: GROUP, version: 'v2', resource: 'backends' },
        object: { apiVersion: `${GROUP}/v1`, kind: 'Backend', metadata: { name: 'admitted' }, spec: { hostPort: 'adm.local:80' } },
      });
      // a v1 write goes to both, unconverted
      const v1 = await s.post(V1, { apiVersion: `${GROUP}/v1`, kind: 'Backend', metadata: { name: 'admitted-v1' }, spec: { hostPort: 'one.local:1' } });
      expect(v1.status, v1.text).toBe(201);
      expect(admitted().slice(1).map((r) => [(r.kind as Obj).version, (r.object as Obj).spec])).toEqual([
        ['v1', { hostPort: 'one.local:1' }],
        ['v1', { hostPort: 'one.local:1' }],
      ]);
    } finally {
      expect((await s.request('DELETE', `${vwc}/backends-v1`)).status).toBe(200);
    }
  });
});
