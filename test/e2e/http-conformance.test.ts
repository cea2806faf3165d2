// HTTP conformance: a real server process per storage backend, checked against upstream behaviour
// (shared/reference/api-conventions.md).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { availableBackends, ServerBackend } from './backend.ts';
import { eventually, TestServer } from './harness.ts';

const CM = '/api/v1/namespaces/default/configmaps';
const SC = '/apis/storage.cluster.io/v1/storageclasses';
const PV = '/api/v1/persistentvolumes';

function pv(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/x' } },
    ...extra,
  };
}

describe.each(availableBackends('HTTP conformance', ['memory', 'sqlite', 'etcd'] as const))('HTTP conformance (%s storage)', (storage) => {
  let s: TestServer;
  const backend = new ServerBackend(storage);
  beforeAll(async () => {
    s = await backend.start();
  });
  afterAll(async () => {
    await s?.stop();
    await backend.close();
  });

  describe('open endpoints and authentication', () => {
    it('serves /version without credentials, reporting 1.33', async () => {
      const r = await s.get('/version', { token: null });
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ major: '1', minor: '33', gitVersion: 'v1.33.0-clusterspec' });
    });

    it('serves health checks, verbose too', async () => {
      for (const p of ['/healthz', '/livez', '/readyz']) {
        const r = await s.get(p, { token: null });
        expect(r.status).toBe(200);
        expect(r.text).toBe('ok');
        expect(r.headers['content-type']).toMatch(/^text\/plain/);
      }
      const v = await s.get('/readyz?verbose', { token: null });
      expect(v.text).toContain('[+]ping ok');
      expect(v.text).toContain('[+]storage ok');
      expect(v.text.trim().endsWith('readyz check passed')).toBe(true);
    });

    it('answers 401 with a Status for missing or bad credentials', async () => {
      const want = '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}';
      for (const token of [null, 'wrong']) {
        const r = await s.get(CM, { token });
        expect(r.status).toBe(401);
        expect(JSON.stringify(r.json)).toBe(want);
        expect(r.headers['www-authenticate']).toBeUndefined();
      }
    });

    it('answers unknown paths with the plain-text 404 page', async () => {
      for (const p of ['/apis/nope.cluster.io/v1', '/foo']) {
        const r = await s.get(p);
        expect(r.status).toBe(404);
        expect(r.text).toBe('404 page not found\n');
      }
    });

    it('answers 405 for a method the route does not have', async () => {
      const r = await s.request('PUT', CM, { body: {} });
      expect(r.status).toBe(405);
      expect(r.json.reason).toBe('MethodNotAllowed');
    });
  });

  describe('ConfigMap CRUD', () => {
    it('creates, reads, updates, conflicts and deletes', async () => {
      const c = await s.post(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'crud', labels: { a: 'b' } }, data: { k: 'v' } });
      expect(c.status).toBe(201);
      expect(c.json.metadata).toMatchObject({ name: 'crud', namespace: 'default' });
      expect(c.json.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
      expect(c.json.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(c.json.metadata.generation).toBeUndefined();
      const rv1 = c.json.metadata.resourceVersion;

      const again = await s.post(CM, { metadata: { name: 'crud' } });
      expect(again.status).toBe(409);
      expect(again.json).toMatchObject({ reason: 'AlreadyExists', message: 'configmaps "crud" already exists', details: { name: 'crud', kind: 'configmaps' } });

      const g = await s.get(`${CM}/crud`);
      expect(g.status).toBe(200);
      expect(g.json).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', data: { k: 'v' } });

      const u = await s.put(`${CM}/crud`, { ...g.json, data: { k: 'v2' } });
      expect(u.status).toBe(200);
      expect(u.json.data.k).toBe('v2');
      expect(Number(u.json.metadata.resourceVersion)).toBeGreaterThan(Number(rv1));
      expect(u.json.metadata.uid).toBe(c.json.metadata.uid);

      const stale = await s.put(`${CM}/crud`, { ...g.json, data: { k: 'v3' } });
      expect(stale.status).toBe(409);
      expect(stale.json.message).toBe('Operation cannot be fulfilled on configmaps "crud": the object has been modified; please apply your changes to the latest version and try again');

      const noop = await s.put(`${CM}/crud`, u.json);
      expect(noop.status).toBe(200);
      expect(noop.json.metadata.resourceVersion).toBe(u.json.metadata.resourceVersion);

      const unconditional = await s.put(`${CM}/crud`, { metadata: { name: 'crud' }, data: { k: 'v4' } });
      expect(unconditional.status).toBe(200);
      expect(unconditional.json.metadata.creationTimestamp).toBe(c.json.metadata.creationTimestamp);

      const mismatch = await s.put(`${CM}/crud`, { metadata: { name: 'other' } });
      expect(mismatch.status).toBe(400);
      expect(mismatch.json.message).toBe('the name of the object (other) does not match the name on the URL (crud)');

      const d = await s.delete(`${CM}/crud`);
      expect(d.status).toBe(200);
      expect(d.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'crud', kind: 'configmaps', uid: c.json.metadata.uid } });

      const gone = await s.get(`${CM}/crud`);
      expect(gone.status).toBe(404);
      expect(gone.json).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'configmaps "crud" not found',
        reason: 'NotFound',
        details: { name: 'crud', kind: 'configmaps' },
        code: 404,
      });
    });

    it('generates names from generateName', async () => {
      const r = await s.post(CM, { metadata: { generateName: 'gen-' } });
      expect(r.status).toBe(201);
      expect(r.json.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    });

    it('rejects a namespace that differs from the URL, and a resourceVersion on create', async () => {
      const ns = await s.post(CM, { metadata: { name: 'x', namespace: 'other' } });
      expect(ns.status).toBe(400);
      expect(ns.json.message).toBe('the namespace of the provided object does not match the namespace sent on the request');
      const rv = await s.post(CM, { metadata: { name: 'x', resourceVersion: '5' } });
      expect(rv.status).toBe(500);
      expect(rv.json.message).toContain('resourceVersion should not be set on objects to be created');
    });

    it('rejects a body of another group/version with 400', async () => {
      const r = await s.post(CM, { apiVersion: 'storage.cluster.io/v1', kind: 'ConfigMap', metadata: { name: 'x' } });
      expect(r.status).toBe(400);
      expect(r.json.message).toBe('the API version in the data (storage.cluster.io/v1) does not match the expected API version (v1)');
    });

    it('answers 422 Invalid with causes', async () => {
      const r = await s.post(CM, { metadata: { name: 'inv' }, data: { 'a b': 'x' } });
      expect(r.status).toBe(422);
      expect(r.json.reason).toBe('Invalid');
      expect(r.json.message).toMatch(/^ConfigMap "inv" is invalid: data\[a b\]: Invalid value: "a b": /);
      expect(r.json.details).toMatchObject({ name: 'inv', kind: 'ConfigMap' });
      expect(r.json.details.causes[0]).toMatchObject({ reason: 'FieldValueInvalid', field: 'data[a b]' });
    });

    it('creating into a missing namespace is 404 namespaces "x" not found', async () => {
      const r = await s.post('/api/v1/namespaces/missing/configmaps', { metadata: { name: 'x' } });
      expect(r.status).toBe(404);
      expect(r.json.message).toBe('namespaces "missing" not found');
    });

    it('honours dryRun=All', async () => {
      const r = await s.post(`${CM}?dryRun=All`, { metadata: { name: 'dry' } });
      expect(r.status).toBe(201);
      expect(r.json.metadata.uid).toBeTruthy();
      expect(r.json.metadata.resourceVersion ?? '').toBe('');
      expect((await s.get(`${CM}/dry`)).status).toBe(404);
      const bad = await s.post(`${CM}?dryRun=Some`, { metadata: { name: 'dry' } });
      expect(bad.status).toBe(422);
      expect(bad.json.message).toContain('dryRun: Unsupported value: "Some": supported values: "All"');
    });

    it('handles unknown fields per fieldValidation', async () => {
      const warn = await s.post(CM, { metadata: { name: 'fv1' }, spec: { foo: 1 } });
      expect(warn.status).toBe(201);
      expect(warn.headers.warning).toBe('299 - "unknown field \\"spec\\""');
      expect(warn.json.spec).toBeUndefined();
      const strict = await s.post(`${CM}?fieldValidation=Strict`, { metadata: { name: 'fv2' }, spec: { foo: 1 }, x: 1 });
      expect(strict.status).toBe(400);
      expect(strict.json.message).toMatch(/^ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "spec", unknown field "x"$/);
      const ignore = await s.post(`${CM}?fieldValidation=Ignore`, { metadata: { name: 'fv3' }, x: 1 });
      expect(ignore.status).toBe(201);
      expect(ignore.headers.warning).toBeUndefined();
      const bad = await s.post(`${CM}?fieldValidation=Loud`, { metadata: { name: 'fv4' } });
      expect(bad.status).toBe(422);
    });
  });

  describe('Secret', () => {
    it('merges stringData into data, never returns it, defaults type to Opaque', async () => {
      const r = await s.post('/api/v1/namespaces/default/secrets', { metadata: { name: 'sec' }, stringData: { password: 'hunter2' }, data: { user: Buffer.from('me').toString('base64') } });
      expect(r.status).toBe(201);
      expect(r.json.stringData).toBeUndefined();
      expect(r.json.type).toBe('Opaque');
      expect(r.json.data).toEqual({ user: 'bWU=', password: Buffer.from('hunter2').toString('base64') });
      const g = await s.get('/api/v1/namespaces/default/secrets/sec');
      expect(g.json.stringData).toBeUndefined();
      const sel = await s.get('/api/v1/namespaces/default/secrets?fieldSelector=type%3DOpaque');
      expect(sel.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toContain('sec');
      const bad = await s.get('/api/v1/namespaces/default/secrets?fieldSelector=spec.x%3D1');
      expect(bad.status).toBe(400);
      expect(bad.json.message).toBe('field label not supported: spec.x');
    });
  });

  describe('PersistentVolume and the status subresource', () => {
    it('drops status on create, keeps it on the main endpoint, takes only status on /status', async () => {
      const c = await s.post(PV, pv('pv-status', { status: { phase: 'Bound' } }));
      expect(c.status).toBe(201);
      expect(c.json.status?.phase).not.toBe('Bound');
      const main = await s.put(`${PV}/pv-status`, { ...c.json, status: { phase: 'Failed' } });
      expect(main.status).toBe(200);
      expect(main.json.status?.phase).toBe(c.json.status?.phase);
      const st = await s.put(`${PV}/pv-status/status`, { ...main.json, spec: { ...main.json.spec, persistentVolumeReclaimPolicy: 'Delete' }, status: { phase: 'Available' } });
      expect(st.status).toBe(200);
      expect(st.json.status.phase).toBe('Available');
      expect(st.json.spec.persistentVolumeReclaimPolicy).toBe(main.json.spec.persistentVolumeReclaimPolicy);
      const gs = await s.get(`${PV}/pv-status/status`);
      expect(gs.json.status.phase).toBe('Available');
      const d = await s.delete(`${PV}/pv-status`);
      expect(d.status).toBe(200);
      expect(d.json.kind).toBe('PersistentVolume');
    });
  });

  describe('StorageClass (cluster-scoped, group)', () => {
    it('creates and deletes returning the object', async () => {
      const c = await s.post(SC, { apiVersion: 'storage.cluster.io/v1', kind: 'StorageClass', metadata: { name: 'fast', namespace: 'ignored' }, provisioner: 'example.com/fast' });
      expect(c.status).toBe(201);
      expect(c.json.metadata.namespace).toBeUndefined();
      const dup = await s.post(SC, { metadata: { name: 'fast' }, provisioner: 'example.com/fast' });
      expect(dup.json.message).toBe('storageclasses.storage.cluster.io "fast" already exists');
      expect(dup.json.details).toEqual({ name: 'fast', group: 'storage.cluster.io', kind: 'storageclasses' });
      const d = await s.delete(`${SC}/fast`);
      expect(d.status).toBe(200);
      expect(d.json).toMatchObject({ kind: 'StorageClass', apiVersion: 'storage.cluster.io/v1', metadata: { name: 'fast' } });
      const nf = await s.get(`${SC}/fast`);
      expect(nf.json.message).toBe('storageclasses.storage.cluster.io "fast" not found');
    });
  });

  describe('list', () => {
    beforeAll(async () => {
      await s.post('/api/v1/namespaces', { metadata: { name: 'paging' } });
      for (let i = 0; i < 5; i++) {
        const r = await s.post('/api/v1/namespaces/paging/configmaps', { metadata: { name: `item-${i}`, labels: { idx: String(i), parity: i % 2 ? 'odd' : 'even' } } });
        expect(r.status).toBe(201);
      }
    });

    it('pages with limit/continue over one snapshot with remainingItemCount', async () => {
      const base = '/api/v1/namespaces/paging/configmaps';
      const p1 = await s.get(`${base}?limit=2`);
      expect(p1.json.kind).toBe('ConfigMapList');
      expect(p1.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['item-0', 'item-1']);
      expect(p1.json.items[0].kind).toBeUndefined();
      expect(p1.json.items[0].apiVersion).toBeUndefined();
      expect(p1.json.metadata.remainingItemCount).toBe(3);
      expect(p1.json.metadata.continue).toBeTruthy();
      // A write between pages does not show in the same list.
      await s.post(`${base}`, { metadata: { name: 'item-9' } });
      const p2 = await s.get(`${base}?limit=2&continue=${encodeURIComponent(p1.json.metadata.continue)}`);
      expect(p2.json.metadata.resourceVersion).toBe(p1.json.metadata.resourceVersion);
      expect(p2.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['item-2', 'item-3']);
      expect(p2.json.metadata.remainingItemCount).toBe(1);
      const p3 = await s.get(`${base}?limit=2&continue=${encodeURIComponent(p2.json.metadata.continue)}`);
      expect(p3.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['item-4']);
      expect(p3.json.metadata.continue).toBeUndefined();
      expect(p3.json.metadata.remainingItemCount).toBeUndefined();
      await s.delete(`${base}/item-9`);
    });

    it('rejects bad continue tokens and RVs with continue', async () => {
      const bad = await s.get('/api/v1/namespaces/paging/configmaps?limit=1&continue=bogus!');
      expect(bad.status).toBe(400);
      expect(bad.json.message).toMatch(/^invalid continue token: /);
      const p1 = await s.get('/api/v1/namespaces/paging/configmaps?limit=1');
      const withRv = await s.get(`/api/v1/namespaces/paging/configmaps?limit=1&resourceVersion=1&continue=${p1.json.metadata.continue}`);
      expect(withRv.status).toBe(400);
      expect(withRv.json.message).toBe('specifying resource version is not allowed when using continue');
    });

    it('validates resourceVersionMatch as upstream', async () => {
      const r = await s.get('/api/v1/namespaces/paging/configmaps?resourceVersionMatch=Exact');
      expect(r.status).toBe(422);
      expect(r.json.message).toBe('ListOptions.meta.cluster.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
      const sie = await s.get('/api/v1/namespaces/paging/configmaps?sendInitialEvents=true');
      expect(sie.status).toBe(422);
      const bad = await s.get('/api/v1/namespaces/paging/configmaps?resourceVersion=abc');
      expect(bad.status).toBe(400);
      expect(bad.json.message).toMatch(/^invalid resource version/);
    });

    it('filters with label selectors (all operators) and field selectors', async () => {
      const names = async (q: string): Promise<string[]> => {
        const r = await s.get(`/api/v1/namespaces/paging/configmaps?${q}`);
        expect(r.status).toBe(200);
        return r.json.items.map((i: { metadata: { name: string } }) => i.metadata.name);
      };
      expect(await names('labelSelector=parity%3Dodd')).toEqual(['item-1', 'item-3']);
      expect(await names('labelSelector=parity!%3Dodd')).toEqual(['item-0', 'item-2', 'item-4']);
      expect(await names('labelSelector=idx%20in%20(0,4)')).toEqual(['item-0', 'item-4']);
      expect(await names('labelSelector=idx%20notin%20(0,1,2)')).toEqual(['item-3', 'item-4']);
      expect(await names('labelSelector=idx>2')).toEqual(['item-3', 'item-4']);
      expect(await names('labelSelector=!idx')).toEqual([]);
      expect(await names('fieldSelector=metadata.name%3Ditem-2')).toEqual(['item-2']);
      expect(await names('fieldSelector=metadata.name!%3Ditem-2,metadata.namespace%3Dpaging&labelSelector=parity%3Deven')).toEqual(['item-0', 'item-4']);
      const sel = await s.get('/api/v1/namespaces/paging/configmaps?labelSelector=parity%3Deven&limit=1');
      expect(sel.json.items).toHaveLength(1);
      expect(sel.json.metadata.continue).toBeTruthy();
      expect(sel.json.metadata.remainingItemCount).toBeUndefined();
      const badL = await s.get('/api/v1/namespaces/paging/configmaps?labelSelector=a%20in%20b');
      expect(badL.status).toBe(400);
      const badF = await s.get('/api/v1/namespaces/paging/configmaps?fieldSelector=data.x%3D1');
      expect(badF.status).toBe(400);
      expect(badF.json.message).toBe('"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"');
    });

    it('lists across all namespaces in key order', async () => {
      const r = await s.get('/api/v1/configmaps?labelSelector=idx');
      expect(r.json.items.map((i: { metadata: { namespace: string } }) => i.metadata.namespace)).toEqual(['paging', 'paging', 'paging', 'paging', 'paging']);
    });
  });

  describe('watch', () => {
    it('delivers ADDED/MODIFIED/DELETED in order and resumes from a resourceVersion', async () => {
      await s.post('/api/v1/namespaces', { metadata: { name: 'watched' } });
      const base = '/api/v1/namespaces/watched/configmaps';
      const start = await s.get(base);
      const rv0 = start.json.metadata.resourceVersion;
      const w = await s.startWatch(`${base}?watch=true&resourceVersion=${rv0}`, 8000, (ev) => ev.length >= 3);
      const c = await s.post(base, { metadata: { name: 'w' }, data: { a: '1' } });
      const u = await s.put(`${base}/w`, { ...c.json, data: { a: '2' } });
      await s.delete(`${base}/w`);
      const got = await w.result;
      expect(got.status).toBe(200);
      expect(got.events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
      expect(got.events[0].object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'w' } });
      expect(got.events[1].object.data.a).toBe('2');
      const rvs = got.events.map((e) => Number(e.object.metadata.resourceVersion));
      expect(rvs[0]).toBeLessThan(rvs[1]);
      expect(rvs[1]).toBeLessThan(rvs[2]);

      // Resume after the MODIFIED: only the DELETED follows.
      const resumed = await s.watch(`${base}?watch=true&resourceVersion=${u.json.metadata.resourceVersion}`, { ms: 3000, until: (ev) => ev.length >= 1 });
      expect(resumed.events.map((e) => e.type)).toEqual(['DELETED']);
    });

    it('sends synthetic ADDED events without a resourceVersion, and respects timeoutSeconds', async () => {
      const r = await s.watch('/api/v1/namespaces/paging/configmaps?watch=1&timeoutSeconds=1', { ms: 5000 });
      expect(r.ended).toBe(true);
      expect(r.events.filter((e) => e.type === 'ADDED').length).toBeGreaterThanOrEqual(5);
      expect(r.events.some((e) => e.type === 'BOOKMARK' || e.type === 'ERROR')).toBe(false);
      // With bookmarks allowed, the stream ends with a BOOKMARK at the last revision.
      const b = await s.watch('/api/v1/namespaces/paging/configmaps?watch=1&timeoutSeconds=1&allowWatchBookmarks=true', { ms: 5000 });
      expect(b.ended).toBe(true);
      const last = b.events[b.events.length - 1];
      expect(last.type).toBe('BOOKMARK');
      expect(Object.keys(last.object)).toEqual(['kind', 'apiVersion', 'metadata']);
      expect(Number(last.object.metadata.resourceVersion)).toBeGreaterThan(0);
    });

    it('ends a streaming list with the initial-events-end bookmark', async () => {
      const r = await s.watch('/api/v1/namespaces/paging/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true', {
        ms: 5000,
        until: (ev) => ev.some((e) => e.type === 'BOOKMARK'),
      });
      const bm = r.events.find((e) => e.type === 'BOOKMARK');
      expect(bm?.object.metadata.annotations).toEqual({ 'cluster.io/initial-events-end': 'true', 'k8s.io/initial-events-end': 'true' });
      expect(r.events.indexOf(bm as never)).toBe(r.events.length - 1);
      const bad = await s.get('/api/v1/namespaces/paging/configmaps?watch=1&sendInitialEvents=true');
      expect(bad.status).toBe(422);
    });

    it('turns selector transitions into ADDED and DELETED', async () => {
      const base = '/api/v1/namespaces/watched/configmaps';
      const c = await s.post(base, { metadata: { name: 'sel', labels: { on: 'no' } } });
      const w = await s.startWatch(`${base}?watch=1&labelSelector=on%3Dyes&resourceVersion=${c.json.metadata.resourceVersion}`, 6000, (ev) => ev.length >= 2);
      const on = await s.put(`${base}/sel`, { ...c.json, metadata: { ...c.json.metadata, labels: { on: 'yes' } } });
      await s.put(`${base}/sel`, { ...on.json, metadata: { ...on.json.metadata, labels: { on: 'no' } } });
      const got = await w.result;
      expect(got.events.map((e) => e.type)).toEqual(['ADDED', 'DELETED']);
    });

    it('answers YAML watches with 406', async () => {
      const r = await s.get('/api/v1/namespaces/paging/configmaps?watch=1', { headers: { Accept: 'application/yaml' } });
      expect(r.status).toBe(406);
    });
  });

  describe('delete', () => {
    it('marks an object with finalizers and removes it with the last finalizer', async () => {
      const base = '/api/v1/namespaces/default/configmaps';
      const c = await s.post(base, { metadata: { name: 'fin', finalizers: ['example.com/keep'] } });
      const w = await s.startWatch(`${base}?watch=1&fieldSelector=metadata.name%3Dfin&resourceVersion=${c.json.metadata.resourceVersion}`, 6000, (ev) => ev.length >= 2);
      const d = await s.delete(`${base}/fin`);
      expect(d.status).toBe(200);
      expect(d.json.metadata.deletionTimestamp).toBeTruthy();
      expect(d.json.metadata.deletionGracePeriodSeconds).toBe(0);
      const still = await s.get(`${base}/fin`);
      expect(still.status).toBe(200);
      const addF = await s.put(`${base}/fin`, { ...still.json, metadata: { ...still.json.metadata, finalizers: ['example.com/keep', 'example.com/more'] } });
      expect(addF.status).toBe(422);
      expect(addF.json.message).toContain('no new finalizers can be added if the object is being deleted');
      const rm = await s.put(`${base}/fin`, { ...still.json, metadata: { ...still.json.metadata, finalizers: [] } });
      expect(rm.status).toBe(200);
      expect((await s.get(`${base}/fin`)).status).toBe(404);
      const got = await w.result;
      expect(got.events.map((e) => e.type)).toEqual(['MODIFIED', 'DELETED']);
    });

    it('checks preconditions and propagationPolicy', async () => {
      const base = '/api/v1/namespaces/default/configmaps';
      await s.post(base, { metadata: { name: 'pre' } });
      const pc = await s.request('DELETE', `${base}/pre`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'nope' } } });
      expect(pc.status).toBe(409);
      expect(pc.json.message).toContain('Precondition failed: UID in precondition: nope');
      const pp = await s.delete(`${base}/pre?propagationPolicy=Sideways`);
      expect(pp.status).toBe(422);
      expect(pp.json.message).toBe('DeleteOptions.meta.cluster.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"');
      expect((await s.delete(`${base}/pre`)).status).toBe(200);
    });

    it('deletes a collection and returns the deleted items', async () => {
      await s.post('/api/v1/namespaces', { metadata: { name: 'dc' } });
      for (const n of ['a', 'b', 'c']) await s.post('/api/v1/namespaces/dc/configmaps', { metadata: { name: n, labels: { drop: n === 'c' ? 'no' : 'yes' } } });
      const r = await s.delete('/api/v1/namespaces/dc/configmaps?labelSelector=drop%3Dyes');
      expect(r.status).toBe(200);
      expect(r.json.kind).toBe('ConfigMapList');
      expect(r.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['a', 'b']);
      const left = await s.get('/api/v1/namespaces/dc/configmaps');
      expect(left.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['c']);
    });

    it('deleting a namespace deletes what is in it', async () => {
      await s.post('/api/v1/namespaces', { metadata: { name: 'doomed' } });
      await s.post('/api/v1/namespaces/doomed/configmaps', { metadata: { name: 'x' } });
      const d = await s.delete('/api/v1/namespaces/doomed');
      expect(d.status).toBe(200);
      expect(d.json.status.phase).toBe('Terminating');
      await eventually(async () => (await s.get('/api/v1/namespaces/doomed')).status === 404);
      expect((await s.get('/api/v1/namespaces/doomed/configmaps/x')).status).toBe(404);
      const def = await s.delete('/api/v1/namespaces/default');
      expect(def.status).toBe(403);
    });
  });

  describe('patch', () => {
    it('applies JSON patch, merge patch and strategic merge patch; 415 for others', async () => {
      const base = '/api/v1/namespaces/default/configmaps';
      await s.post(base, { metadata: { name: 'p', labels: { a: '1' } }, data: { x: '1', y: '2' } });
      const jp = await s.request('PATCH', `${base}/p`, { raw: JSON.stringify([{ op: 'replace', path: '/data/x', value: '9' }]), headers: { 'Content-Type': 'application/json-patch+json' } });
      expect(jp.status).toBe(200);
      expect(jp.json.data.x).toBe('9');
      const failing = await s.request('PATCH', `${base}/p`, { raw: JSON.stringify([{ op: 'test', path: '/data/x', value: 'nope' }]), headers: { 'Content-Type': 'application/json-patch+json' } });
      expect(failing.status).toBe(422);
      expect(failing.json.message).toBe('the server rejected our request due to an error in our request');
      const mp = await s.request('PATCH', `${base}/p`, { raw: JSON.stringify({ data: { y: null, z: '3' } }), headers: { 'Content-Type': 'application/merge-patch+json' } });
      expect(mp.json.data).toEqual({ x: '9', z: '3' });
      const smp = await s.request('PATCH', `${base}/p`, { raw: JSON.stringify({ metadata: { labels: { b: '2' } } }), headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
      expect(smp.json.metadata.labels).toEqual({ a: '1', b: '2' });
      // Every write records its manager (the User-Agent up to "/" without fieldManager).
      expect(smp.json.metadata.managedFields.map((f: { operation: string }) => f.operation)).toContain('Update');
      const other = await s.request('PATCH', `${base}/p`, { raw: '{}', headers: { 'Content-Type': 'application/json' } });
      expect(other.status).toBe(415);
      expect(other.json.message).toBe(
        'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json',
      );
      const force = await s.request('PATCH', `${base}/p?force=true`, { raw: '{}', headers: { 'Content-Type': 'application/merge-patch+json' } });
      expect(force.status).toBe(422);
      expect(force.json.message).toBe('PatchOptions.meta.cluster.io "" is invalid: force: Forbidden: may not be specified for non-apply patch');
      const stale = await s.request('PATCH', `${base}/p`, { raw: JSON.stringify({ metadata: { resourceVersion: '1' }, data: { q: '1' } }), headers: { 'Content-Type': 'application/merge-patch+json' } });
      expect(stale.status).toBe(409);
      const missing = await s.request('PATCH', `${base}/nope`, { raw: '{}', headers: { 'Content-Type': 'application/merge-patch+json' } });
      expect(missing.status).toBe(404);
    });
  });

  describe('server-side apply', () => {
    const base = '/api/v1/namespaces/default/configmaps';
    const applyDoc = (data: Record<string, string>) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n${Object.entries(data).map(([k, v]) => `  ${k}: "${v}"`).join('\n')}\n`;
    const applyAs = (manager: string, data: Record<string, string>, force = false) =>
      s.request('PATCH', `${base}/ssa?fieldManager=${manager}${force ? '&force=true' : ''}`, { raw: applyDoc(data), headers: { 'Content-Type': 'application/apply-patch+yaml' } });

    it('creates with 201, tracks managers, reports conflicts and takes over with force', async () => {
      const c = await applyAs('alice', { a: '1' });
      expect(c.status).toBe(201);
      expect(c.json.metadata.managedFields).toEqual([
        { manager: 'alice', operation: 'Apply', apiVersion: 'v1', time: expect.any(String), fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } },
      ]);
      const same = await applyAs('alice', { a: '2' });
      expect(same.status).toBe(200);
      expect(same.json.data.a).toBe('2');
      const conflict = await applyAs('bob', { a: '3' });
      expect(conflict.status).toBe(409);
      expect(conflict.json).toMatchObject({
        reason: 'Conflict',
        message: 'Apply failed with 1 conflict: conflict with "alice": .data.a',
        details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.a' }] },
      });
      const forced = await applyAs('bob', { a: '3' }, true);
      expect(forced.status).toBe(200);
      expect(forced.json.data.a).toBe('3');
      const noManager = await s.request('PATCH', `${base}/ssa`, { raw: applyDoc({ a: '1' }), headers: { 'Content-Type': 'application/apply-patch+yaml' } });
      expect(noManager.status).toBe(422);
      expect(noManager.json.message).toBe('PatchOptions.meta.cluster.io "" is invalid: fieldManager: Required value: is required for apply patch');
    });
  });

  describe('encodings', () => {
    it('reads YAML bodies and writes YAML', async () => {
      const r = await s.request('POST', CM, {
        raw: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yml\ndata:\n  k: v\n',
        headers: { 'Content-Type': 'application/yaml', Accept: 'application/yaml' },
      });
      expect(r.status).toBe(201);
      expect(r.headers['content-type']).toBe('application/yaml');
      expect(parseYaml(r.text)).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'yml' }, data: { k: 'v' } });
    });

    it('answers 400 for malformed bodies, 415 for unknown types, 413 over 3 MiB, 406 for unknown Accept', async () => {
      const bad = await s.request('POST', CM, { raw: '{"metadata":', headers: { 'Content-Type': 'application/json' } });
      expect(bad.status).toBe(400);
      const form = await s.request('POST', CM, { raw: 'a=b', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
      expect(form.status).toBe(415);
      expect(form.json.reason).toBe('UnsupportedMediaType');
      const big = await s.request('POST', CM, { raw: JSON.stringify({ metadata: { name: 'big' }, data: { k: 'x'.repeat(3 * 1024 * 1024) } }), headers: { 'Content-Type': 'application/json' } });
      expect(big.status).toBe(413);
      expect(big.json.message).toBe('Request entity too large: limit is 3145728');
      const na = await s.get(CM, { headers: { Accept: 'application/vnd.kubernetes.protobuf' } });
      expect(na.status).toBe(406);
      expect(na.json.reason).toBe('NotAcceptable');
    });

    it('pretty-prints on request', async () => {
      const r = await s.get('/api/v1/namespaces/default?pretty=true');
      expect(r.text).toContain('\n  "kind": "Namespace"');
    });

    it('serves Table output with the fallback kubectl sends, and PartialObjectMetadata', async () => {
      const accept = 'application/json;as=Table;v=v1;g=meta.cluster.io,application/json;as=Table;v=v1beta1;g=meta.cluster.io,application/json';
      const t = await s.get('/api/v1/namespaces/paging/configmaps', { headers: { Accept: accept } });
      expect(t.status).toBe(200);
      expect(t.json.kind).toBe('Table');
      expect(t.json.apiVersion).toBe('meta.cluster.io/v1');
      expect(t.json.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Data', 'Age']);
      expect(t.json.rows[0].cells.slice(0, 2)).toEqual(['item-0', 0]);
      expect(t.json.rows[0].object.kind).toBe('PartialObjectMetadata');
      const one = await s.get('/api/v1/namespaces/default/secrets/sec', { headers: { Accept: accept } });
      expect(one.json.rows).toHaveLength(1);
      expect(one.json.rows[0].cells[2]).toBe(2);
      const fallback = await s.get('/api/v1/namespaces/default/secrets/sec', { headers: { Accept: 'application/json;as=Table;v=v1beta1;g=meta.cluster.io,application/json' } });
      expect(fallback.json.kind).toBe('Secret');
      const pom = await s.get('/api/v1/namespaces/default/secrets/sec', { headers: { Accept: 'application/json;as=PartialObjectMetadata;g=meta.cluster.io;v=v1' } });
      expect(pom.json).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.cluster.io/v1', metadata: { name: 'sec' } });
      expect(pom.json.data).toBeUndefined();
      const wrong = await s.get('/api/v1/namespaces/default/secrets', { headers: { Accept: 'application/json;as=PartialObjectMetadata;g=meta.cluster.io;v=v1' } });
      expect(wrong.status).toBe(406);
    });
  });

  describe('discovery and OpenAPI', () => {
    it('serves legacy discovery', async () => {
      const api = await s.get('/api');
      expect(api.json.kind).toBe('APIVersions');
      expect(api.json.apiVersion).toBeUndefined();
      expect(api.json.versions).toEqual(['v1']);
      const v1 = await s.get('/api/v1');
      expect(v1.json.kind).toBe('APIResourceList');
      const cm = v1.json.resources.find((r: { name: string }) => r.name === 'configmaps');
      expect(cm).toMatchObject({ singularName: 'configmap', namespaced: true, kind: 'ConfigMap', verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'], shortNames: ['cm'] });
      expect(v1.json.resources.find((r: { name: string }) => r.name === 'persistentvolumes/status')).toMatchObject({ verbs: ['get', 'patch', 'update'] });
      const apis = await s.get('/apis');
      expect(apis.json.kind).toBe('APIGroupList');
      const storageGroup = apis.json.groups.find((g: { name: string }) => g.name === 'storage.cluster.io');
      expect(storageGroup.preferredVersion).toEqual({ groupVersion: 'storage.cluster.io/v1', version: 'v1' });
      const g = await s.get('/apis/storage.cluster.io');
      expect(g.json).toMatchObject({ kind: 'APIGroup', apiVersion: 'v1', name: 'storage.cluster.io' });
      const gv = await s.get('/apis/storage.cluster.io/v1');
      expect(gv.json.resources.find((r: { name: string }) => r.name === 'storageclasses')).toMatchObject({ namespaced: false, shortNames: ['sc'] });
    });

    it('serves aggregated discovery with the exact Content-Type, ETag and 304', async () => {
      const accept = 'application/json;g=apidiscovery.cluster.io;v=v2;as=APIGroupDiscoveryList,application/json';
      const r = await s.get('/apis', { headers: { Accept: accept } });
      expect(r.headers['content-type']).toBe('application/json;g=apidiscovery.cluster.io;v=v2;as=APIGroupDiscoveryList');
      expect(r.json.kind).toBe('APIGroupDiscoveryList');
      const item = r.json.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'storage.cluster.io');
      const scRes = item.versions[0].resources.find((x: { resource: string }) => x.resource === 'storageclasses');
      expect(scRes).toMatchObject({ scope: 'Cluster', responseKind: { group: 'storage.cluster.io', version: 'v1', kind: 'StorageClass' }, shortNames: ['sc'] });
      expect(r.headers.etag).toBeTruthy();
      const again = await s.get('/apis', { headers: { Accept: accept, 'If-None-Match': r.headers.etag as string } });
      expect(again.status).toBe(304);
      const core = await s.get('/api', { headers: { Accept: accept } });
      expect(core.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['']);
    });

    it('serves OpenAPI v3 with hashes, immutable caching and 301 for a stale hash', async () => {
      const idx = await s.get('/openapi/v3');
      const entry = idx.json.paths['api/v1'];
      expect(entry.serverRelativeURL).toMatch(/^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}$/);
      const doc = await s.get(entry.serverRelativeURL);
      expect(doc.status).toBe(200);
      expect(doc.headers['cache-control']).toBe('public, immutable');
      expect(doc.json.openapi).toMatch(/^3\./);
      const stale = await s.get('/openapi/v3/api/v1?hash=ABC');
      expect(stale.status).toBe(301);
      expect(stale.headers.location).toBe(entry.serverRelativeURL);
      const v2 = await s.get('/openapi/v2');
      expect(v2.json.swagger).toBe('2.0');
      expect(v2.headers.etag).toBeTruthy();
    });
  });

  if (storage === 'sqlite') {
    it('keeps data and token across a restart', async () => {
      await s.post(CM, { metadata: { name: 'durable' }, data: { k: 'v' } });
      const dir = s.dataDir;
      const token = s.token;
      await s.stop(false);
      const s2 = await TestServer.start('sqlite', dir);
      try {
        expect(s2.token).toBe(token);
        const r = await s2.get(`${CM}/durable`);
        expect(r.status).toBe(200);
        expect(r.json.data.k).toBe('v');
      } finally {
        await s2.stop(false);
      }
      // The last server of this suite owns the directory again, so that afterAll removes it.
      s = await TestServer.start('sqlite', dir, [], true);
    });
  }
});
