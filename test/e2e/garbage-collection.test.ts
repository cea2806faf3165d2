// The garbage collector in a real server process (memory storage): kubectl's
// `delete --cascade=background|foreground|orphan` on a namespaced owner (ConfigMap) and a
// cluster-scoped one (StorageClass) whose dependents are ConfigMaps and custom resources, and a
// foreground delete over HTTP that waits for a dependent's finalizer and then completes.
// Where kubectl is absent its tests are skipped with a visible warning.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, TestServer } from './harness.ts';
import { KUBECTL, runKubectl } from './kubectl.ts';

if (!KUBECTL) console.warn('kubectl not found (/usr/bin/kubectl): skipping the kubectl garbage collection e2e tests');
const maybe = KUBECTL ? describe : describe.skip;

const GROUP = 'gce2e.example.cluster.io';
const CM = '/api/v1/namespaces/default/configmaps';
const SC = '/apis/storage.cluster.io/v1/storageclasses';
const GADGETS = `/apis/${GROUP}/v1/namespaces/default/gadgets`;

let s: TestServer;
let work: string;

interface Owner {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  blockOwnerDeletion?: boolean;
}

async function create(path: string, body: Record<string, unknown>): Promise<Owner> {
  const r = await s.request('POST', path, { body });
  if (r.status !== 201) throw new Error(`POST ${path}: ${r.status} ${r.text}`);
  return { apiVersion: r.json.apiVersion, kind: r.json.kind, name: r.json.metadata.name, uid: r.json.metadata.uid };
}

const configMap = (name: string, owners: Owner[] = [], extra: Record<string, unknown> = {}) =>
  create(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(owners.length ? { ownerReferences: owners } : {}), ...extra }, data: { k: 'v' } });
const gadget = (name: string, owners: Owner[] = [], extra: Record<string, unknown> = {}) =>
  create(GADGETS, { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name, ...(owners.length ? { ownerReferences: owners } : {}), ...extra }, spec: { size: 1 } });
const storageClass = (name: string) => create(SC, { apiVersion: 'storage.cluster.io/v1', kind: 'StorageClass', metadata: { name }, provisioner: 'example.com/p' });

async function status(path: string): Promise<number> {
  return (await s.request('GET', path)).status;
}

async function gone(path: string): Promise<true> {
  return eventually(async () => (await status(path)) === 404 || undefined, 10_000, 50);
}

beforeAll(async () => {
  s = await TestServer.start('memory');
  work = mkdtempSync(join(tmpdir(), 'clusterspec-gc-'));
  const crd = await s.request('POST', '/apis/apiextensions.cluster.io/v1/customresourcedefinitions', {
    body: {
      apiVersion: 'apiextensions.cluster.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `gadgets.${GROUP}` },
      spec: {
        group: GROUP,
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
      },
    },
  });
  expect(crd.status).toBe(201);
  await eventually(async () => (await s.request('GET', GADGETS)).status === 200 || undefined, 15_000, 50);
}, 90_000);

afterAll(async () => {
  await s?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

maybe('kubectl delete --cascade', () => {
  const kubectl = (...args: string[]) => runKubectl(s.kubeconfig, join(work, 'cache'), args);

  it('background: the owner goes at once, its ConfigMap and custom resource dependents follow', async () => {
    const owner = await configMap('bg-owner');
    await configMap('bg-dep', [owner]);
    await gadget('bg-gadget', [owner]);
    const r = await kubectl('delete', 'configmap', 'bg-owner', '--cascade=background');
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('configmap "bg-owner" deleted\n');
    expect(await status(`${CM}/bg-owner`)).toBe(404);
    await gone(`${CM}/bg-dep`);
    await gone(`${GADGETS}/bg-gadget`);
  });

  it('foreground: kubectl returns once the owner is gone, after its blocking dependents', async () => {
    const owner = await configMap('fg-owner');
    await gadget('fg-gadget', [{ ...owner, blockOwnerDeletion: true }]);
    await configMap('fg-dep', [{ ...owner, blockOwnerDeletion: true }]);
    const r = await kubectl('delete', 'configmap', 'fg-owner', '--cascade=foreground', '--timeout=20s');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(await status(`${CM}/fg-owner`)).toBe(404);
    // blocking dependents go before the owner
    expect(await status(`${GADGETS}/fg-gadget`)).toBe(404);
    expect(await status(`${CM}/fg-dep`)).toBe(404);
  });

  it('orphan: a cluster-scoped owner goes, its dependents stay without the reference', async () => {
    const owner = await storageClass('orphan-sc');
    const keeper = await storageClass('keeper-sc');
    await configMap('orphan-dep', [{ ...owner, blockOwnerDeletion: true }]);
    await gadget('orphan-gadget', [owner, keeper]);
    const r = await kubectl('delete', 'storageclass', 'orphan-sc', '--cascade=orphan', '--timeout=20s');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(await status(`${SC}/orphan-sc`)).toBe(404);
    const dep = await s.request('GET', `${CM}/orphan-dep`);
    expect(dep.status).toBe(200);
    expect(dep.json.metadata.ownerReferences).toBeUndefined();
    const g = await s.request('GET', `${GADGETS}/orphan-gadget`);
    expect(g.json.metadata.ownerReferences.map((o: Owner) => o.name)).toEqual(['keeper-sc']);
  });

  it('background on a cluster-scoped owner: namespaced dependents with another live owner keep it', async () => {
    const owner = await storageClass('bg-sc');
    const keeper = await configMap('bg-keeper');
    await configMap('bg-shared', [owner, keeper]);
    await gadget('bg-sc-gadget', [owner]);
    const r = await kubectl('delete', 'storageclass', 'bg-sc');
    expect(r.code).toBe(0);
    await gone(`${GADGETS}/bg-sc-gadget`);
    const shared = await eventually(async () => {
      const x = await s.request('GET', `${CM}/bg-shared`);
      return x.json.metadata.ownerReferences?.length === 1 ? x : undefined;
    }, 10_000, 50);
    expect(shared.json.metadata.ownerReferences[0]).toMatchObject({ kind: 'ConfigMap', name: 'bg-keeper', uid: keeper.uid });
  });
});

describe('foreground deletion over HTTP', () => {
  it('keeps the owner with foregroundDeletion while a blocking dependent is held by a finalizer, then completes', async () => {
    const owner = await configMap('http-owner');
    await gadget('http-held', [{ ...owner, blockOwnerDeletion: true }], { finalizers: ['example.cluster.io/hold'] });
    const del = await s.request('DELETE', `${CM}/http-owner`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' } });
    expect(del.status).toBe(200);
    expect(del.json.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(del.json.metadata.deletionTimestamp).toBeTruthy();
    // the collector deletes the dependent, which its finalizer holds
    const held = await eventually(async () => {
      const x = await s.request('GET', `${GADGETS}/http-held`);
      return x.json.metadata.deletionTimestamp ? x : undefined;
    }, 10_000, 50);
    expect(held.json.metadata.finalizers).toEqual(['example.cluster.io/hold']);
    const waiting = await s.request('GET', `${CM}/http-owner`);
    expect(waiting.status).toBe(200);
    expect(waiting.json.metadata.finalizers).toEqual(['foregroundDeletion']);
    const release = await s.request('PATCH', `${GADGETS}/http-held`, {
      raw: JSON.stringify({ metadata: { finalizers: null } }),
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(release.status).toBe(200);
    await gone(`${GADGETS}/http-held`);
    await gone(`${CM}/http-owner`);
  });
});
