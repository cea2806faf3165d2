// Validating admission webhooks end to end: a REAL server process (runtime/cli.ts) and a REAL HTTPS
// webhook server started here with a throwaway CA (openssl), all on 127.0.0.1. Configurations are
// created through the API; every test removes its own (afterEach), and since requests about
// ValidatingWebhookConfigurations never go to webhooks, that always works.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makePKI, reply, startWebhookServer, type TestPKI, type WebhookServer } from '../../runtime/admission/webhook-fixture.ts';
import { openStorage } from '../../runtime/storage/index.ts';
import { eventually, ROOT, TestServer } from './harness.ts';
import { KUBECTL, runKubectl, type KubectlResult } from './kubectl.ts';

const VWC = '/apis/admissionregistration.cluster.io/v1/validatingwebhookconfigurations';
const CM = '/api/v1/namespaces/default/configmaps';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

function cm(name: string, labels?: Record<string, string>, data: Record<string, string> = { a: '1' }): Json {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: labels ? { name, labels } : { name }, data };
}

function pv(name: string): Json {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/x' } },
  };
}

function pvc(name: string): Json {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  };
}

const CM_CREATE = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];

async function freePortClosed(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

describe('validating admission webhooks (real server, real HTTPS webhook)', () => {
  let pki: TestPKI;
  let wh: WebhookServer;
  let s: TestServer;
  /** Requests whose connection the webhook saw closed before it answered. */
  const abandoned: string[] = [];

  const webhook = (name: string, path: string, extra: Json = {}): Json => ({
    name,
    clientConfig: { url: wh.url(path), caBundle: pki.caBundle },
    rules: CM_CREATE,
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    failurePolicy: 'Fail',
    timeoutSeconds: 5,
    ...extra,
  });

  const register = async (name: string, ...webhooks: Json[]): Promise<Json> => {
    const r = await s.post(VWC, { apiVersion: 'admissionregistration.cluster.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name }, webhooks });
    expect(r.status, r.text).toBe(201);
    return r.json;
  };

  const seenAt = (path: string): Json[] => wh.seen.filter((x) => x.path === path).map((x) => x.review.request);

  beforeAll(async () => {
    pki = makePKI();
    wh = await startWebhookServer(pki);
    wh.handlers.set('/allow', (rv, _req, res) => reply(res, rv, { allowed: true }));
    wh.handlers.set('/allow2', (rv, _req, res) => reply(res, rv, { allowed: true }));
    wh.handlers.set('/deny', (rv, _req, res) =>
      reply(res, rv, { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'configmaps are closed today' } }),
    );
    wh.handlers.set('/deny422', (rv, _req, res) => reply(res, rv, { allowed: false, status: { code: 422, message: 'data.a must be even' } }));
    wh.handlers.set('/warn', (rv, _req, res) => reply(res, rv, { allowed: true, warnings: ['mind the "gap"', 'second warning'] }));
    wh.handlers.set('/deny-warn', (rv, _req, res) =>
      reply(res, rv, { allowed: false, warnings: ['told you so'], status: { code: 400, message: 'not like this' } }),
    );
    wh.handlers.set('/slow', (rv, req, res) => {
      const t = setTimeout(() => reply(res, rv, { allowed: true }), 3000);
      res.on('close', () => {
        if (!res.writableFinished) {
          clearTimeout(t);
          abandoned.push(String(rv.request.name ?? ''));
        }
      });
      void req;
    });
    s = await TestServer.start('memory');
  });

  afterEach(async () => {
    const r = await s.request('DELETE', VWC);
    expect(r.status, r.text).toBe(200);
  });

  afterAll(async () => {
    await s?.stop();
    await wh?.close();
  });

  it('allows: the write is stored, and the webhook saw it', async () => {
    await register('allow', webhook('allow.test.io', '/allow'));
    const before = seenAt('/allow').length;
    const r = await s.post(CM, cm('allowed-1'));
    expect(r.status, r.text).toBe(201);
    expect(seenAt('/allow').length).toBe(before + 1);
    expect((await s.get(`${CM}/allowed-1`)).status).toBe(200);
  });

  it('denies with the webhook message and code; nothing is stored', async () => {
    await register('deny', webhook('deny.test.io', '/deny'));
    const r = await s.post(CM, cm('denied-1'));
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      code: 403,
      reason: 'Forbidden',
      message: 'admission webhook "deny.test.io" denied the request: configmaps are closed today',
    });
    expect((await s.get(`${CM}/denied-1`)).status).toBe(404);
    await s.request('DELETE', `${VWC}/deny`);
    await register('deny422', webhook('deny422.test.io', '/deny422'));
    const r2 = await s.post(CM, cm('denied-2'));
    expect(r2.status).toBe(422);
    expect(r2.json.message).toBe('admission webhook "deny422.test.io" denied the request: data.a must be even');
  });

  it('sends operation, object, oldObject, userInfo, dryRun, options and a fresh uid', async () => {
    await register(
      'record',
      webhook('record.test.io', '/allow2', {
        rules: [{ operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        objectSelector: { matchLabels: { record: 'yes' } },
      }),
    );
    const L = { record: 'yes' };
    const at = (): number => seenAt('/allow2').length;
    let n = at();
    // CREATE
    const c = await s.post(`${CM}?fieldManager=e2e`, cm('fields', L));
    expect(c.status, c.text).toBe(201);
    const create = seenAt('/allow2')[n];
    expect(create).toMatchObject({
      operation: 'CREATE',
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      requestKind: { group: '', version: 'v1', kind: 'ConfigMap' },
      name: 'fields',
      namespace: 'default',
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fields', namespace: 'default', labels: L }, data: { a: '1' } },
      oldObject: null,
      dryRun: false,
      options: { kind: 'CreateOptions', apiVersion: 'meta.cluster.io/v1', fieldManager: 'e2e' },
      userInfo: { username: 'admin', uid: 'admin' },
    });
    expect(create.userInfo.groups).toEqual(expect.arrayContaining(['system:masters', 'system:authenticated']));
    expect(create.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(create.subResource).toBeUndefined();
    // UPDATE (PUT)
    n = at();
    const u = await s.put(`${CM}/fields`, { ...c.json, data: { a: '2' } });
    expect(u.status, u.text).toBe(200);
    const update = seenAt('/allow2')[n];
    expect(update).toMatchObject({ operation: 'UPDATE', name: 'fields', object: { data: { a: '2' } }, oldObject: { data: { a: '1' } }, options: { kind: 'UpdateOptions' } });
    expect(update.uid).not.toBe(create.uid);
    // UPDATE (merge patch): options are the UpdateOptions the patch was converted to, as upstream
    n = at();
    const p = await s.request('PATCH', `${CM}/fields`, { raw: JSON.stringify({ data: { a: '3' } }), headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(p.status, p.text).toBe(200);
    expect(seenAt('/allow2')[n]).toMatchObject({ operation: 'UPDATE', object: { data: { a: '3' } }, oldObject: { data: { a: '2' } }, options: { kind: 'UpdateOptions' } });
    // dryRun=All create: called with dryRun true; nothing stored
    n = at();
    const d = await s.post(`${CM}?dryRun=All`, cm('fields-dry', L));
    expect(d.status, d.text).toBe(201);
    expect(seenAt('/allow2')[n]).toMatchObject({ operation: 'CREATE', dryRun: true, options: { kind: 'CreateOptions', dryRun: ['All'] } });
    expect((await s.get(`${CM}/fields-dry`)).status).toBe(404);
    // server-side apply that creates: CREATE with CreateOptions; then UPDATE
    n = at();
    const applyDoc = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fields-ssa', labels: L }, data: { x: '1' } });
    const ap = await s.request('PATCH', `${CM}/fields-ssa?fieldManager=e2e-apply`, { raw: applyDoc, headers: { 'Content-Type': 'application/apply-patch+yaml' } });
    expect(ap.status, ap.text).toBe(201);
    expect(seenAt('/allow2')[n]).toMatchObject({ operation: 'CREATE', name: 'fields-ssa', oldObject: null, options: { kind: 'CreateOptions', fieldManager: 'e2e-apply' } });
    n = at();
    const ap2 = await s.request('PATCH', `${CM}/fields-ssa?fieldManager=e2e-apply`, { raw: applyDoc.replace('"1"', '"2"'), headers: { 'Content-Type': 'application/apply-patch+yaml' } });
    expect(ap2.status, ap2.text).toBe(200);
    expect(seenAt('/allow2')[n]).toMatchObject({ operation: 'UPDATE', object: { data: { x: '2' } }, oldObject: { data: { x: '1' } } });
    // DELETE: object null, oldObject the stored object, DeleteOptions
    n = at();
    const del = await s.request('DELETE', `${CM}/fields`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' } });
    expect(del.status, del.text).toBe(200);
    expect(seenAt('/allow2')[n]).toMatchObject({
      operation: 'DELETE',
      name: 'fields',
      object: null,
      oldObject: { metadata: { name: 'fields' }, data: { a: '3' } },
      options: { kind: 'DeleteOptions', propagationPolicy: 'Background' },
    });
    // deletecollection: one DELETE per object
    for (const name of ['coll-1', 'coll-2']) expect((await s.post(CM, cm(name, { ...L, coll: 'x' }))).status).toBe(201);
    n = at();
    const dc = await s.request('DELETE', `${CM}?labelSelector=coll%3Dx`);
    expect(dc.status, dc.text).toBe(200);
    const dels = seenAt('/allow2').slice(n);
    expect(dels.map((x: Json) => `${x.operation} ${x.name}`).sort()).toEqual(['DELETE coll-1', 'DELETE coll-2']);
  });

  it('failurePolicy on a timeout: Fail rejects, Ignore lets the write through', async () => {
    await register('slow-fail', webhook('slow-fail.test.io', '/slow', { timeoutSeconds: 1 }));
    const t0 = Date.now();
    const r = await s.post(CM, cm('slow-1'));
    expect(Date.now() - t0).toBeLessThan(2900);
    expect(r.status).toBe(500);
    expect(r.json.reason).toBe('InternalError');
    expect(r.json.message).toContain('failed calling webhook "slow-fail.test.io"');
    expect(r.json.message).toContain('context deadline exceeded');
    await s.request('DELETE', `${VWC}/slow-fail`);
    await register('slow-ignore', webhook('slow-ignore.test.io', '/slow', { timeoutSeconds: 1, failurePolicy: 'Ignore' }));
    const r2 = await s.post(CM, cm('slow-2'));
    expect(r2.status, r2.text).toBe(201);
  });

  it('failurePolicy on connection refused: Fail rejects, Ignore lets the write through', async () => {
    const port = await freePortClosed();
    const hook = (name: string, fp: string): Json => ({ ...webhook(name, '/allow', { failurePolicy: fp }), clientConfig: { url: `https://127.0.0.1:${port}/x`, caBundle: pki.caBundle } });
    await register('refused-fail', hook('refused-fail.test.io', 'Fail'));
    const r = await s.post(CM, cm('refused-1'));
    expect(r.status).toBe(500);
    expect(r.json.message).toBe(
      `Internal error occurred: failed calling webhook "refused-fail.test.io": Post "https://127.0.0.1:${port}/x?timeout=5s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    );
    await s.request('DELETE', `${VWC}/refused-fail`);
    await register('refused-ignore', hook('refused-ignore.test.io', 'Ignore'));
    expect((await s.post(CM, cm('refused-2'))).status).toBe(201);
  });

  it('a wrong caBundle fails TLS verification (Fail): the webhook never sees the request', async () => {
    const other = makePKI();
    const before = wh.seen.length;
    await register('wrong-ca', { ...webhook('wrong-ca.test.io', '/allow'), clientConfig: { url: wh.url('/allow'), caBundle: other.caBundle } });
    const r = await s.post(CM, cm('wrong-ca-1'));
    expect(r.status).toBe(500);
    expect(r.json.message).toContain('failed calling webhook "wrong-ca.test.io"');
    expect(r.json.message).toContain('x509: certificate signed by unknown authority');
    expect(wh.seen.length).toBe(before);
    expect((await s.get(`${CM}/wrong-ca-1`)).status).toBe(404);
  });

  it('namespaceSelector uses the labels of the stored Namespace, live', async () => {
    for (const [name, env] of [
      ['ns-prod', 'prod'],
      ['ns-dev', 'dev'],
    ]) {
      const r = await s.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { env } } });
      expect(r.status, r.text).toBe(201);
    }
    await register('ns-sel', webhook('ns-sel.test.io', '/deny', { namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] } }));
    expect((await s.post('/api/v1/namespaces/ns-prod/configmaps', cm('x'))).status).toBe(403);
    expect((await s.post('/api/v1/namespaces/ns-dev/configmaps', cm('x'))).status).toBe(201);
    const p = await s.request('PATCH', '/api/v1/namespaces/ns-dev', { raw: JSON.stringify({ metadata: { labels: { env: 'prod' } } }), headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(p.status, p.text).toBe(200);
    expect((await s.post('/api/v1/namespaces/ns-dev/configmaps', cm('y'))).status).toBe(403);
  });

  it('objectSelector matches the new or the old object', async () => {
    await register(
      'obj-sel',
      webhook('obj-sel.test.io', '/deny', {
        rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        objectSelector: { matchLabels: { guarded: 'true' } },
      }),
    );
    expect((await s.post(CM, cm('guarded', { guarded: 'true' }))).status).toBe(403);
    const free = await s.post(CM, cm('unguarded'));
    expect(free.status).toBe(201);
    // adding the label: the new object matches
    const add = await s.put(`${CM}/unguarded`, { ...free.json, metadata: { ...free.json.metadata, labels: { guarded: 'true' } } });
    expect(add.status).toBe(403);
    expect((await s.put(`${CM}/unguarded`, { ...free.json, metadata: { ...free.json.metadata, labels: { other: 'x' } } })).status).toBe(200);
  });

  it('rules: operations, resources, subresources (persistentvolumeclaims/status) and scope', async () => {
    // operations: DELETE only
    await register('ops', webhook('ops.test.io', '/deny', { rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }));
    expect((await s.post(CM, cm('ops-1'))).status).toBe(201);
    expect((await s.delete(`${CM}/ops-1`)).status).toBe(403);
    await s.request('DELETE', `${VWC}/ops`);
    expect((await s.delete(`${CM}/ops-1`)).status).toBe(200);

    // resources: secrets only; configmaps pass
    await register('res', webhook('res.test.io', '/deny', { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] }] }));
    expect((await s.post(CM, cm('res-1'))).status).toBe(201);
    expect((await s.post('/api/v1/namespaces/default/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'res-1' } })).status).toBe(403);
    await s.request('DELETE', `${VWC}/res`);

    // subresources: only persistentvolumeclaims/status
    const PVC = '/api/v1/namespaces/default/persistentvolumeclaims';
    await register('sub', webhook('sub.test.io', '/deny', { rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['persistentvolumeclaims/status'] }] }));
    const c = await s.post(PVC, pvc('claim'));
    expect(c.status, c.text).toBe(201);
    const main = await s.put(`${PVC}/claim`, { ...c.json, metadata: { ...c.json.metadata, labels: { a: 'b' } } });
    expect(main.status, main.text).toBe(200);
    const st = await s.put(`${PVC}/claim/status`, { ...main.json, status: { phase: 'Bound' } });
    expect(st.status).toBe(403);
    const stp = await s.request('PATCH', `${PVC}/claim/status`, { raw: JSON.stringify({ status: { phase: 'Lost' } }), headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(stp.status).toBe(403);
    await s.request('DELETE', `${VWC}/sub`);
    await register('sub-main', webhook('sub-main.test.io', '/allow2', { rules: [{ operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['persistentvolumeclaims/*'] }] }));
    const n = seenAt('/allow2').length;
    const st2 = await s.put(`${PVC}/claim/status`, { ...(await s.get(`${PVC}/claim`)).json, status: { phase: 'Bound' } });
    expect(st2.status, st2.text).toBe(200);
    expect(seenAt('/allow2')[n]).toMatchObject({ operation: 'UPDATE', subResource: 'status', resource: { resource: 'persistentvolumeclaims' }, requestSubResource: 'status' });
    await s.request('DELETE', `${VWC}/sub-main`);

    // scope: Cluster catches PersistentVolumes, not ConfigMaps; Namespaced the reverse
    const any = (scope: string): Json[] => [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps', 'persistentvolumes'], scope }];
    await register('scope-cluster', webhook('scope-cluster.test.io', '/deny', { rules: any('Cluster') }));
    expect((await s.post(CM, cm('scope-1'))).status).toBe(201);
    expect((await s.post('/api/v1/persistentvolumes', pv('scope-pv-1'))).status).toBe(403);
    await s.request('DELETE', `${VWC}/scope-cluster`);
    await register('scope-ns', webhook('scope-ns.test.io', '/deny', { rules: any('Namespaced') }));
    expect((await s.post(CM, cm('scope-2'))).status).toBe(403);
    expect((await s.post('/api/v1/persistentvolumes', pv('scope-pv-2'))).status).toBe(201);
  });

  it('matchConditions: FALSE skips, TRUE calls, an error follows failurePolicy', async () => {
    await register('mc', webhook('mc.test.io', '/deny', { matchConditions: [{ name: 'not-skipped', expression: 'object.metadata.name != "skip-me"' }] }));
    expect((await s.post(CM, cm('skip-me'))).status).toBe(201); // FALSE: not called
    expect((await s.post(CM, cm('call-me'))).status).toBe(403); // TRUE: called, denies
    await s.request('DELETE', `${VWC}/mc`);
    const broken = [{ name: 'broken', expression: 'object.metadata.labels["missing"] == "x"' }];
    await register('mc-err-fail', webhook('mc-err-fail.test.io', '/allow', { matchConditions: broken }));
    const r = await s.post(CM, cm('mc-err-1', { present: 'y' }));
    expect(r.status).toBe(403);
    expect(r.json.message).toContain('configmaps "mc-err-1" is forbidden');
    expect(r.json.message).toContain(`expression 'object.metadata.labels["missing"] == "x"' resulted in error`);
    await s.request('DELETE', `${VWC}/mc-err-fail`);
    await register('mc-err-ignore', webhook('mc-err-ignore.test.io', '/deny', { matchConditions: broken, failurePolicy: 'Ignore' }));
    expect((await s.post(CM, cm('mc-err-2', { present: 'y' }))).status).toBe(201); // error ignored, webhook skipped
  });

  it('dryRun: sideEffects None and NoneOnDryRun are called; Some cannot be stored through v1', async () => {
    await register('dry', webhook('dry-none.test.io', '/allow2'), webhook('dry-noneondryrun.test.io', '/allow2', { sideEffects: 'NoneOnDryRun' }));
    const n = seenAt('/allow2').length;
    const r = await s.post(`${CM}?dryRun=All`, cm('dry-1'));
    expect(r.status, r.text).toBe(201);
    expect(seenAt('/allow2').slice(n).map((x: Json) => x.dryRun)).toEqual([true, true]);
    expect((await s.get(`${CM}/dry-1`)).status).toBe(404);
    // A dryRun delete is checked too, and deletes nothing.
    await s.request('DELETE', `${VWC}/dry`);
    expect((await s.post(CM, cm('dry-2'))).status).toBe(201);
    await register('dry-del', webhook('dry-del.test.io', '/deny', { rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] }));
    expect((await s.delete(`${CM}/dry-2?dryRun=All`)).status).toBe(403);
    const some = await s.post(VWC, {
      apiVersion: 'admissionregistration.cluster.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'some' },
      webhooks: [webhook('some.test.io', '/allow', { sideEffects: 'Some' })],
    });
    expect(some.status).toBe(422);
    expect(some.json.message).toContain('sideEffects');
  });

  it('warnings become Warning headers, on success and with a rejection', async () => {
    await register('warn', webhook('warn.test.io', '/warn'));
    const r = await s.post(CM, cm('warned'));
    expect(r.status).toBe(201);
    // node joins repeated headers with ", "
    expect(r.headers.warning).toBe('299 - "mind the \\"gap\\"", 299 - "second warning"');
    await s.request('DELETE', `${VWC}/warn`);
    await register('deny-warn', webhook('deny-warn.test.io', '/deny-warn'));
    const d = await s.post(CM, cm('warned-2'));
    expect(d.status).toBe(400);
    expect(d.json.message).toBe('admission webhook "deny-warn.test.io" denied the request: not like this');
    expect(d.headers.warning).toBe('299 - "told you so"');
  });

  it('configuration changes take effect at once: created, then deleted mid-run', async () => {
    await register('midrun', webhook('midrun.test.io', '/deny'));
    // every request after the create's response is checked
    for (let i = 0; i < 5; i++) expect((await s.post(CM, cm(`mid-before-${i}`))).status).toBe(403);
    // concurrent traffic while the configuration is deleted
    let stop = false;
    const results: { sentAfterDelete: boolean; status: number }[] = [];
    let deleted = false;
    let k = 0;
    const worker = async (): Promise<void> => {
      while (!stop) {
        const sentAfterDelete = deleted;
        const r = await s.post(CM, cm(`mid-${k++}`));
        results.push({ sentAfterDelete, status: r.status });
      }
    };
    const workers = [worker(), worker(), worker(), worker()];
    await sleep(300);
    const d = await s.request('DELETE', `${VWC}/midrun`);
    expect(d.status).toBe(200);
    deleted = true;
    await sleep(300);
    stop = true;
    await Promise.all(workers);
    const before = results.filter((x) => !x.sentAfterDelete);
    const after = results.filter((x) => x.sentAfterDelete);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((x) => x.status === 201)).toBe(true);
    expect(before.every((x) => x.status === 403 || x.status === 201)).toBe(true);
    expect(before.filter((x) => x.status === 403).length).toBeGreaterThan(0);
    // and sequentially: nothing is checked any more
    const seen = wh.seen.length;
    for (let i = 0; i < 5; i++) expect((await s.post(CM, cm(`mid-after-${i}`))).status).toBe(201);
    expect(wh.seen.length).toBe(seen);
  });

  it('configurations themselves are never sent to webhooks (no lock-out)', async () => {
    const all = [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }];
    await register('deny-all', webhook('deny-all.test.io', '/deny', { rules: all }));
    expect((await s.post(CM, cm('locked'))).status).toBe(403);
    await register('another', webhook('another.test.io', '/deny'));
    const p = await s.request('PATCH', `${VWC}/another`, { raw: JSON.stringify({ metadata: { labels: { x: 'y' } } }), headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(p.status, p.text).toBe(200);
    expect((await s.delete(`${VWC}/deny-all`)).status).toBe(200);
  });

  it('a client that goes away cancels the webhook call', async () => {
    await register('cancel', webhook('cancel.test.io', '/slow', { timeoutSeconds: 10 }));
    const before = abandoned.length;
    await new Promise<void>((resolve) => {
      const body = JSON.stringify(cm('cancel-me'));
      const req = httpsRequest(new URL(CM, s.url), {
        method: 'POST',
        ca: s.ca,
        agent: false,
        headers: { Authorization: `Bearer ${s.token}`, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) },
      });
      req.on('error', () => resolve());
      req.end(body);
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 500);
    });
    await eventually(async () => abandoned.length > before, 2500, 50);
    expect(abandoned.slice(before)).toContain('cancel-me');
  });
});

describe('configurations loaded from storage at start; service references through --webhook-service-resolver', () => {
  let pki: TestPKI;
  let wh: WebhookServer;
  let s: TestServer | undefined;
  let dir: string;

  beforeAll(async () => {
    pki = makePKI();
    wh = await startWebhookServer(pki);
    wh.handlers.set('/svc-deny', (rv, _req, res) => reply(res, rv, { allowed: false, status: { code: 403, message: 'denied through the service' } }));
    wh.handlers.set('/svc-allow', (rv, _req, res) => reply(res, rv, { allowed: true }));
    dir = mkdtempSync(join(tmpdir(), 'clusterspec-admission-'));
    // A configuration written straight into storage, bypassing v1 validation (sideEffects Some), as
    // one created through v1beta1 would be; plus an ordinary one reached through a service.
    const storage = openStorage({ kind: 'sqlite', dataDir: dir, autoCompaction: false });
    const cfg = (name: string, hook: Json): string =>
      JSON.stringify({ apiVersion: 'admissionregistration.cluster.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name, uid: `uid-${name}`, generation: 1, creationTimestamp: '2026-01-01T00:00:00Z' }, webhooks: [hook] });
    await storage.create(
      '/admissionregistration.cluster.io/validatingwebhookconfigurations/stored-some',
      cfg('stored-some', {
        name: 'some.test.io',
        clientConfig: { service: { namespace: 'default', name: 'webhook', port: 8443, path: '/svc-allow' }, caBundle: pki.caBundle },
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] }],
        sideEffects: 'Some',
        admissionReviewVersions: ['v1'],
        failurePolicy: 'Fail',
      }),
    );
    await storage.create(
      '/admissionregistration.cluster.io/validatingwebhookconfigurations/stored-svc',
      cfg('stored-svc', {
        name: 'svc.test.io',
        clientConfig: { service: { namespace: 'default', name: 'webhook', port: 8443, path: '/svc-deny' }, caBundle: pki.caBundle },
        rules: CM_CREATE,
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        failurePolicy: 'Fail',
      }),
    );
    await storage.close();
    s = await TestServer.start('sqlite', dir, ['--webhook-service-resolver', `default/webhook:8443=https://127.0.0.1:${wh.port}`], true);
  });

  afterAll(async () => {
    await s?.stop();
    await wh?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a stored configuration is in effect from the start; the service is reached at the override, verified as webhook.default.svc', async () => {
    const srv = s as TestServer;
    const r = await srv.post(CM, cm('svc-1'));
    expect(r.status).toBe(403);
    expect(r.json.message).toBe('admission webhook "svc.test.io" denied the request: denied through the service');
    expect(wh.seen.at(-1)?.path).toBe('/svc-deny');
    expect(wh.seen.at(-1)?.query).toBe('?timeout=10s');
  });

  it('dryRun against a webhook with sideEffects Some is rejected without calling it; a real write calls it', async () => {
    const srv = s as TestServer;
    const SEC = '/api/v1/namespaces/default/secrets';
    const before = wh.seen.length;
    const d = await srv.post(`${SEC}?dryRun=All`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'dry-some' } });
    expect(d.status).toBe(400);
    expect(d.json).toMatchObject({ reason: 'BadRequest', message: 'admission webhook "some.test.io" does not support dry run' });
    expect(wh.seen.length).toBe(before);
    const w = await srv.post(SEC, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'real-some' } });
    expect(w.status, w.text).toBe(201);
    expect(wh.seen.length).toBe(before + 1);
  });

  it('an update keeps sideEffects Some while a stored webhook has it (upstream ratchet); None stored refuses Some', async () => {
    const srv = s as TestServer;
    const VWC = '/apis/admissionregistration.cluster.io/v1/validatingwebhookconfigurations';
    const some = (await srv.get(`${VWC}/stored-some`)).json as { metadata: Json; webhooks: Json[] };
    const kept = await srv.put(`${VWC}/stored-some`, { ...some, metadata: { ...some.metadata, labels: { touched: 'yes' } } });
    expect(kept.status, kept.text).toBe(200);
    expect((kept.json as { webhooks: Json[] }).webhooks[0]).toMatchObject({ sideEffects: 'Some' });
    const none = (await srv.get(`${VWC}/stored-svc`)).json as { webhooks: Json[] };
    const refused = await srv.put(`${VWC}/stored-svc`, { ...none, webhooks: [{ ...none.webhooks[0], sideEffects: 'Some' }] });
    expect(refused.status).toBe(422);
    expect(refused.json.details.causes).toEqual([{ field: 'webhooks[0].sideEffects', reason: 'FieldValueNotSupported', message: 'Unsupported value: "Some": supported values: "None", "NoneOnDryRun"' }]);
  });
});

describe('--webhook-service-resolver flag', () => {
  const run = (args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', 'runtime/cli.ts', ...args], { cwd: ROOT, timeout: 30_000 }, (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      });
    });

  it('is listed in --help and a malformed value is refused before anything starts', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--webhook-service-resolver ns/name[:port]=https://host:port,...');
    const bad = await run(['--storage', 'memory', '--webhook-service-resolver', 'default/webhook=http://127.0.0.1:1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('error: --webhook-service-resolver: service resolver target "http://127.0.0.1:1" must be https');
    const bad2 = await run(['--storage', 'memory', '--webhook-service-resolver', 'webhook=https://127.0.0.1:1']);
    expect(bad2.code).toBe(2);
    expect(bad2.stderr).toContain('error: --webhook-service-resolver: invalid service reference "webhook"');
  });
});

// ---------------------------------------------------------------------------------------------
// kubectl

if (!KUBECTL) console.warn('kubectl not found (/usr/bin/kubectl): skipping the kubectl admission e2e test');
const maybe = KUBECTL ? describe : describe.skip;

maybe('kubectl with a validating webhook', () => {
  let pki: TestPKI;
  let wh: WebhookServer;
  let s: TestServer;
  let work: string;

  const kubectl = (args: string[], timeoutMs?: number): Promise<KubectlResult> => runKubectl(s.kubeconfig, join(work, 'cache'), args, timeoutMs);

  beforeAll(async () => {
    pki = makePKI();
    wh = await startWebhookServer(pki);
    wh.handlers.set('/kubectl-deny', (rv, _req, res) => {
      const name = String((rv.request.object as Json)?.metadata?.name ?? '');
      if (name.startsWith('ok-')) reply(res, rv, { allowed: true });
      else reply(res, rv, { allowed: false, status: { code: 403, message: `names must start with ok- (got ${name})` } });
    });
    s = await TestServer.start('memory');
    work = mkdtempSync(join(tmpdir(), 'clusterspec-kubectl-admission-'));
  });
  afterAll(async () => {
    await s?.stop();
    await wh?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('kubectl apply -f registers the webhook; kubectl create and apply are rejected with its message', async () => {
    const cfg = join(work, 'vwc.yaml');
    writeFileSync(
      cfg,
      `apiVersion: admissionregistration.cluster.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: names
webhooks:
- name: names.test.io
  admissionReviewVersions: ["v1"]
  sideEffects: None
  failurePolicy: Fail
  clientConfig:
    url: ${wh.url('/kubectl-deny')}
    caBundle: ${pki.caBundle}
  rules:
  - operations: ["CREATE", "UPDATE"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["configmaps"]
`,
    );
    const reg = await kubectl(['apply', '-f', cfg]);
    expect(reg.stderr).toBe('');
    expect(reg.stdout).toContain('validatingwebhookconfiguration.admissionregistration.cluster.io/names created');

    const c = await kubectl(['create', 'configmap', 'bad-name', '--from-literal=a=b']);
    expect(c.code).not.toBe(0);
    expect(c.stderr).toContain('admission webhook "names.test.io" denied the request: names must start with ok- (got bad-name)');

    const doc = join(work, 'cm.yaml');
    writeFileSync(doc, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: also-bad\ndata:\n  x: "1"\n');
    const a = await kubectl(['apply', '-f', doc]);
    expect(a.code).not.toBe(0);
    expect(a.stderr).toContain('admission webhook "names.test.io" denied the request: names must start with ok- (got also-bad)');

    const ok = await kubectl(['create', 'configmap', 'ok-name', '--from-literal=a=b']);
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toContain('configmap/ok-name created');

    expect((await kubectl(['delete', '-f', cfg])).code).toBe(0);
    const after = await kubectl(['create', 'configmap', 'bad-after-delete', '--from-literal=a=b']);
    expect(after.stdout).toContain('configmap/bad-after-delete created');
  });
});
