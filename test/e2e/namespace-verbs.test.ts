// Namespaces served as upstream serves them (issue 13): no DeleteCollection (discovery leaves the
// verb out, DELETE on the collection is upstream's 405), and PUT /finalize, with which a user clears
// a namespace stuck Terminating. Over HTTP always; with the real kubectl where it is installed
// (`kubectl api-resources`, `kubectl delete ns --all`, `kubectl replace --raw .../finalize`).

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, TestServer } from './harness.ts';
import { KUBECTL, runKubectl, type KubectlResult } from './kubectl.ts';

if (!KUBECTL) console.warn('kubectl not found (/usr/bin/kubectl): skipping the kubectl cases of namespace-verbs');
const withKubectl = KUBECTL ? describe : describe.skip;

let s: TestServer;
let work: string;
const kubectl = (args: string[]): Promise<KubectlResult> => runKubectl(s.kubeconfig, join(work, 'cache'), args);

beforeAll(async () => {
  s = await TestServer.start('memory');
  work = mkdtempSync(join(tmpdir(), 'clusterspec-ns-verbs-'));
});
afterAll(async () => {
  await s?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

const namespace = (name: string, finalizers?: string[]) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name }, ...(finalizers ? { spec: { finalizers } } : {}) });

/** Deletes a namespace holding a ConfigMap, and waits until the controller has emptied it and taken out its own finalizer. */
async function leaveStuck(name: string, foreign: string): Promise<void> {
  expect((await s.post('/api/v1/namespaces', namespace(name, [foreign]))).status).toBe(201);
  expect((await s.post(`/api/v1/namespaces/${name}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' } })).status).toBe(201);
  expect((await s.delete(`/api/v1/namespaces/${name}`)).json.status.phase).toBe('Terminating');
  await eventually(async () => {
    const ns = (await s.get(`/api/v1/namespaces/${name}`)).json;
    return JSON.stringify(ns.spec?.finalizers) === JSON.stringify([foreign]);
  });
  expect((await s.get(`/api/v1/namespaces/${name}/configmaps/cm`)).status).toBe(404);
}

describe('namespaces over HTTP', () => {
  // upstream: go-restful's 405, rendered by the apiserver's service error handler (NewGenericServerResponse)
  const methodNotAllowed = {
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
    message: 'the server does not allow this method on the requested resource', reason: 'MethodNotAllowed', details: {}, code: 405,
  };

  it.each([
    ['DELETE', '/api/v1/namespaces'],
    ['GET', '/api/v1/namespaces/default/finalize'],
    ['PATCH', '/api/v1/namespaces/default/finalize'],
    ['POST', '/api/v1/namespaces/default'],
  ])('%s %s is upstream\'s 405', async (method, path) => {
    const r = await s.request(method, path, { raw: '{}', headers: { 'Content-Type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' } });
    expect(r.status).toBe(405);
    expect(r.json).toEqual(methodNotAllowed);
    expect(r.headers.allow).toBeUndefined();
  });

  it('DELETE on the collection deletes nothing', async () => {
    expect((await s.post('/api/v1/namespaces', namespace('survivor'))).status).toBe(201);
    expect((await s.delete('/api/v1/namespaces')).status).toBe(405);
    expect((await s.get('/api/v1/namespaces/survivor')).json.status.phase).toBe('Active');
  });

  it('legacy and aggregated discovery: namespaces without deletecollection, namespaces/finalize with update', async () => {
    const legacy = (await s.get('/api/v1')).json.resources as { name: string; verbs: string[]; kind: string; namespaced: boolean }[];
    const names = legacy.map((r) => r.name);
    expect(names.slice(names.indexOf('namespaces'), names.indexOf('namespaces') + 3)).toEqual(['namespaces', 'namespaces/finalize', 'namespaces/status']);
    expect(legacy.find((r) => r.name === 'namespaces')!.verbs).toEqual(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
    expect(legacy.find((r) => r.name === 'namespaces/finalize')).toMatchObject({ kind: 'Namespace', namespaced: false, verbs: ['update'] });
    expect(legacy.find((r) => r.name === 'configmaps')!.verbs).toContain('deletecollection');
    const aggregated = (await s.get('/api', { headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } })).json;
    const ns = aggregated.items[0].versions[0].resources.find((r: { resource: string }) => r.resource === 'namespaces');
    expect(ns.verbs).toEqual(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
    expect(ns.subresources.map((x: { subresource: string; verbs: string[] }) => [x.subresource, x.verbs])).toEqual([['finalize', ['update']], ['status', ['get', 'patch', 'update']]]);
  });

  it('PUT /finalize writes spec.finalizers (not status) and records the manager with subresource finalize', async () => {
    expect((await s.post('/api/v1/namespaces', namespace('fin'))).status).toBe(201);
    const body = (await s.get('/api/v1/namespaces/fin')).json;
    body.spec.finalizers = ['example.com/mine'];
    body.status.phase = 'Terminating';
    const r = await s.put('/api/v1/namespaces/fin/finalize?fieldManager=tester', body);
    expect(r.status).toBe(200);
    expect(r.json.spec).toEqual({ finalizers: ['example.com/mine'] });
    expect(r.json.status).toEqual({ phase: 'Active' });
    expect(r.json.metadata.managedFields.find((e: { manager: string }) => e.manager === 'tester')).toMatchObject({ operation: 'Update', subresource: 'finalize' });
    // the main resource still keeps spec.finalizers
    const main = (await s.get('/api/v1/namespaces/fin')).json;
    main.spec.finalizers = [];
    expect((await s.put('/api/v1/namespaces/fin', main)).json.spec).toEqual({ finalizers: ['example.com/mine'] });
  });

  it('a namespace stuck Terminating on a foreign finalizer goes once /finalize clears it', async () => {
    await leaveStuck('stuck-http', 'example.com/stuck');
    const ns = (await s.get('/api/v1/namespaces/stuck-http')).json;
    expect(ns.status.phase).toBe('Terminating');
    ns.spec.finalizers = [];
    const r = await s.put('/api/v1/namespaces/stuck-http/finalize', ns);
    expect(r.status).toBe(200);
    expect((await s.get('/api/v1/namespaces/stuck-http')).status).toBe(404);
  });

  // upstream's namespace Delete: the options decide the orphan and foregroundDeletion finalizers, and the
  // garbage collector and the namespace controller each take theirs out
  it.each([
    { policy: 'Foreground', finalizer: 'foregroundDeletion' },
    { policy: 'Orphan', finalizer: 'orphan' },
  ])('a first DELETE with propagationPolicy $policy marks $finalizer, and the namespace still goes', async ({ policy, finalizer }) => {
    const name = `propagation-${policy.toLowerCase()}`;
    expect((await s.post('/api/v1/namespaces', namespace(name))).status).toBe(201);
    const d = await s.delete(`/api/v1/namespaces/${name}`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: policy } });
    expect(d.status, d.text).toBe(200);
    expect(d.json.metadata.finalizers).toEqual([finalizer]);
    expect(d.json.metadata).not.toHaveProperty('deletionGracePeriodSeconds');
    await eventually(async () => (await s.get(`/api/v1/namespaces/${name}`)).status === 404, 20_000);
  });
});

withKubectl('namespaces with kubectl', () => {
  it('kubectl api-resources: namespaces has no deletecollection', async () => {
    const r = await kubectl(['api-resources', '-o', 'wide', '--api-group=']);
    expect(r.stderr).toBe('');
    const row = r.stdout.split('\n').find((l) => /^namespaces\s/.test(l));
    expect(row).toMatch(/\screate,delete,get,list,patch,update,watch\s/);
    expect(r.stdout.split('\n').find((l) => /^configmaps\s/.test(l))).toContain('deletecollection');
  });

  it('kubectl delete ns --all deletes each namespace by name (default is refused, as upstream)', async () => {
    for (const n of ['all-a', 'all-b']) expect((await s.post('/api/v1/namespaces', namespace(n))).status).toBe(201);
    const r = await kubectl(['delete', 'ns', '--all', '--wait=false']);
    expect(r.stdout).toContain('namespace "all-a" deleted');
    expect(r.stdout).toContain('namespace "all-b" deleted');
    expect(r.stderr).toContain('namespaces "default" is forbidden: this namespace may not be deleted');
    await eventually(async () => (await s.get('/api/v1/namespaces/all-a')).status === 404 && (await s.get('/api/v1/namespaces/all-b')).status === 404);
  });

  it('kubectl replace --raw .../finalize clears a namespace stuck Terminating', async () => {
    await leaveStuck('stuck-kubectl', 'example.com/stuck');
    const got = await kubectl(['get', 'ns', 'stuck-kubectl', '-o', 'json']);
    expect(got.code).toBe(0);
    const ns = JSON.parse(got.stdout);
    expect(ns.status.phase).toBe('Terminating');
    ns.spec.finalizers = [];
    const file = join(work, 'stuck.json');
    writeFileSync(file, JSON.stringify(ns));
    const r = await kubectl(['replace', '--raw', '/api/v1/namespaces/stuck-kubectl/finalize', '-f', file]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ kind: 'Namespace', metadata: { name: 'stuck-kubectl' }, status: { phase: 'Terminating' } });
    // an empty list is left out, as upstream's omitempty does
    expect(JSON.parse(r.stdout).spec).toEqual({});
    const after = await kubectl(['get', 'ns', 'stuck-kubectl']);
    expect(after.code).not.toBe(0);
    expect(after.stderr).toContain('namespaces "stuck-kubectl" not found');
  });
});
