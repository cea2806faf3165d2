// The migration controller in process, over a server assembled from out/ with memory storage: a
// custom resource migrated page by page from v1 to v2 (checked in storage), resuming from a saved
// spec.continueToken, a built-in resource, an unknown resource, and the CRD storedVersions steps.

import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StorageVersionMigration } from '../../out/types/index.ts';
import { ApiError } from '../errors/api-error.ts';
import { TokenAuthenticator } from '../http/auth.ts';
import { buildApiServer, loadGenerated, type BuiltServer } from '../http/bootstrap.ts';
import type { Obj } from '../api/object.ts';
import type { Store } from '../registry/store.ts';
import { openStorage, type Storage } from '../storage/index.ts';
import { StorageVersionMigrationController } from './controller.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const GROUP = 'migrate.example.cluster.io';
const CRD_NAME = `gizmos.${GROUP}`;
const NS = 'default';

let storage: Storage;
let built: BuiltServer;
const logs: string[] = [];
let controller: StorageVersionMigrationController | undefined;

function store(group: string, plural: string): Store {
  const s = built.registry.storeFor(group, plural);
  if (!s) throw new Error(`no store ${group}/${plural}`);
  return s;
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function crdBody(storageVersion: 'v1' | 'v2', versions: ('v1' | 'v2')[] = ['v1', 'v2']): Obj {
  const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } };
  return {
    apiVersion: 'apiextensions.cluster.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: CRD_NAME },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
      versions: versions.map((name) => ({ name, served: true, storage: name === storageVersion, schema })),
    },
  };
}

/** The stored apiVersion of every gizmo, read from storage itself. */
async function storedApiVersions(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const page = await storage.list(`/${GROUP}/gizmos/`);
  for (const kv of page.items) out.set(kv.key.split('/').pop() as string, (JSON.parse(kv.value) as { apiVersion: string }).apiVersion);
  return out;
}

async function servedAt(version: string): Promise<Store> {
  return waitFor(`gizmos served at storage version ${version}`, async () => {
    const s = built.registry.storeFor(GROUP, 'gizmos');
    return s?.apiVersion === `${GROUP}/${version}` ? s : undefined;
  });
}

async function createMigration(name: string, resource: { group: string; version: string; resource: string }, continueToken?: string): Promise<void> {
  await store('storagemigration.cluster.io', 'storageversionmigrations').create(
    undefined,
    { apiVersion: 'storagemigration.cluster.io/v1alpha1', kind: 'StorageVersionMigration', metadata: { name }, spec: { resource, ...(continueToken ? { continueToken } : {}) } },
    {},
  );
}

async function migration(name: string): Promise<StorageVersionMigration> {
  return (await store('storagemigration.cluster.io', 'storageversionmigrations').get(undefined, name)) as unknown as StorageVersionMigration;
}

async function finished(name: string): Promise<StorageVersionMigration> {
  return waitFor(`migration ${name} to finish`, async () => {
    const m = await migration(name);
    return (m.status?.conditions ?? []).some((c) => (c.type === 'Succeeded' || c.type === 'Failed') && c.status === 'True') ? m : undefined;
  });
}

function conditionsOf(m: StorageVersionMigration): Record<string, { status: string; reason?: string; message?: string; lastUpdateTime?: string }> {
  return Object.fromEntries((m.status?.conditions ?? []).map((c) => [c.type, c]));
}

function startController(pageSize: number): StorageVersionMigrationController {
  controller?.stop();
  controller = new StorageVersionMigrationController({ registry: built.registry, pageSize, log: (m) => logs.push(m) });
  return controller;
}

beforeAll(async () => {
  const gen = await loadGenerated(join(ROOT, 'out'));
  storage = openStorage({ kind: 'memory' });
  built = await buildApiServer(gen, { storage, authenticator: TokenAuthenticator.fromCsv(''), admission: false, storageVersionMigration: false });
  await store('apiextensions.cluster.io', 'customresourcedefinitions').create(undefined, crdBody('v1'), {});
  const v1 = await servedAt('v1');
  for (let i = 0; i < 30; i++) {
    await v1.create(NS, { apiVersion: `${GROUP}/v1`, kind: 'Gizmo', metadata: { name: `g${String(i).padStart(2, '0')}` }, spec: { size: i } }, {});
  }
  const crds = store('apiextensions.cluster.io', 'customresourcedefinitions');
  const crd = await crds.get(undefined, CRD_NAME);
  await crds.update(undefined, CRD_NAME, { ...crd, spec: (crdBody('v2').spec as Obj) }, {});
  await servedAt('v2');
});

afterAll(async () => {
  controller?.stop();
  built?.stop();
  await storage?.close();
});

describe('StorageVersionMigrationController', () => {
  it('resumes from a saved spec.continueToken: objects before it are not listed again', async () => {
    expect([...(await storedApiVersions()).values()].every((v) => v === `${GROUP}/v1`)).toBe(true);
    // What an interrupted run leaves behind: the token after the first page of 7.
    const first = await store(GROUP, 'gizmos').list(undefined, { limit: 7 });
    const token = first.metadata.continue as string;
    await createMigration('resume', { group: GROUP, version: 'v2', resource: 'gizmos' }, token);
    await startController(5).start();
    const m = await finished('resume');
    expect(conditionsOf(m).Succeeded).toMatchObject({ status: 'True', reason: 'StorageVersionMigrationSucceeded' });
    const stored = await storedApiVersions();
    const firstNames = new Set(first.items.map((o) => (o.metadata as { name: string }).name));
    for (const [name, apiVersion] of stored) expect([name, apiVersion]).toEqual([name, firstNames.has(name) ? `${GROUP}/v1` : `${GROUP}/v2`]);
    expect(m.spec?.continueToken).toBeUndefined();
  });

  it('migrates every object of a custom resource page by page: Running, then Succeeded; continueToken saved per page', async () => {
    const tokens: string[] = [];
    let watchedToTheEnd = false;
    const stream = await store('storagemigration.cluster.io', 'storageversionmigrations').watch(undefined, {}, {
      send: (_t, o) => {
        const svm = o as unknown as StorageVersionMigration;
        if (svm.metadata?.name !== 'gizmos') return;
        const t = svm.spec?.continueToken;
        if (t && !tokens.includes(t)) tokens.push(t);
        if (conditionsOf(svm).Succeeded?.status === 'True') watchedToTheEnd = true;
      },
      error: () => undefined,
      end: () => undefined,
    });
    await createMigration('gizmos', { group: GROUP, version: 'v1', resource: 'gizmos' });
    const m = await finished('gizmos');
    // The watch may lag behind a read: wait until it has delivered the last write too.
    await waitFor('the watch to deliver Succeeded', async () => (watchedToTheEnd ? true : undefined));
    stream.stop();
    const c = conditionsOf(m);
    expect(c.Succeeded).toMatchObject({ status: 'True', reason: 'StorageVersionMigrationSucceeded', message: '' });
    expect(c.Running).toMatchObject({ status: 'False', reason: 'StorageVersionMigrationInProgress' });
    expect(c.Failed).toBeUndefined();
    expect(Date.parse(c.Succeeded.lastUpdateTime ?? '')).not.toBeNaN();
    expect(Number(m.status?.resourceVersion)).toBeGreaterThan(0);
    // 30 objects in pages of 5: a token after each of the first five pages, none at the end.
    expect(tokens.length).toBe(5);
    expect(m.spec?.continueToken).toBeUndefined();
    const stored = await storedApiVersions();
    expect(stored.size).toBe(30);
    expect([...stored.values()].every((v) => v === `${GROUP}/v2`)).toBe(true);
  });

  it('does not rewrite objects already at the storage version (a second migration writes nothing)', async () => {
    const before = await storage.currentRevision();
    await createMigration('again', { group: GROUP, version: 'v2', resource: 'gizmos' });
    expect(conditionsOf(await finished('again')).Succeeded?.status).toBe('True');
    const page = await storage.list(`/${GROUP}/gizmos/`);
    expect(page.items.every((kv) => kv.modRevision <= before)).toBe(true);
  });

  it('migrates a built-in resource', async () => {
    await store('', 'configmaps').create(NS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1' }, data: { a: 'b' } }, {});
    await createMigration('configmaps', { group: '', version: 'v1', resource: 'configmaps' });
    const c = conditionsOf(await finished('configmaps'));
    expect(c.Succeeded?.status).toBe('True');
    expect(c.Running?.status).toBe('False');
  });

  it.each([
    ['unknown resource', { group: 'nope.cluster.io', version: 'v1', resource: 'things' }, 'resource does not exist in discovery: things in nope.cluster.io/v1'],
    ['unserved version of a custom resource', { group: GROUP, version: 'v9', resource: 'gizmos' }, `resource does not exist in discovery: gizmos in ${GROUP}/v9`],
    ['wrong version of a built-in', { group: '', version: 'v2', resource: 'configmaps' }, 'resource does not exist in discovery: configmaps in v2'],
  ])('fails a migration of an %s', async (_what, resource, message) => {
    const name = `missing-${resource.resource}-${resource.version}`;
    await createMigration(name, resource);
    const c = conditionsOf(await finished(name));
    expect(c.Failed).toMatchObject({ status: 'True', reason: 'StorageVersionMigrationFailed', message });
    expect(c.Running).toBeUndefined();
    expect(c.Succeeded).toBeUndefined();
  });

  it('storedVersions: v1 can leave status.storedVersions and then spec.versions; not the other way round, and not the storage version', async () => {
    const crds = store('apiextensions.cluster.io', 'customresourcedefinitions');
    const crd = await crds.get(undefined, CRD_NAME);
    expect((crd.status as { storedVersions: string[] }).storedVersions).toEqual(['v1', 'v2']);
    const reason = async (p: Promise<unknown>): Promise<string> => {
      try {
        await p;
        return 'ok';
      } catch (e) {
        if (e instanceof ApiError) return `${e.code} ${e.message}`;
        throw e;
      }
    };
    // v1 still stored: removing it from spec.versions is refused.
    expect(await reason(crds.update(undefined, CRD_NAME, { ...crd, spec: crdBody('v2', ['v2']).spec as Obj }, {}))).toContain(
      'status.storedVersions[0]: Invalid value: "v1": missing from spec.versions; v1 was previously a storage version',
    );
    // The storage version cannot leave storedVersions, nor can the list become empty.
    expect(await reason(crds.update(undefined, CRD_NAME, { ...crd, status: { ...(crd.status as Obj), storedVersions: ['v1'] } }, { subresource: 'status' }))).toContain(
      'status.storedVersions: Invalid value: ["v1"]: must have the storage version v2',
    );
    expect(await reason(crds.update(undefined, CRD_NAME, { ...crd, status: { ...(crd.status as Obj), storedVersions: [] } }, { subresource: 'status' }))).toContain(
      'must have at least one stored version',
    );
    expect(await reason(crds.update(undefined, CRD_NAME, { ...crd, status: { ...(crd.status as Obj), storedVersions: ['v2'] } }, { subresource: 'status' }))).toBe('ok');
    const shrunk = await crds.get(undefined, CRD_NAME);
    expect((shrunk.status as { storedVersions: string[] }).storedVersions).toEqual(['v2']);
    expect(await reason(crds.update(undefined, CRD_NAME, { ...shrunk, spec: crdBody('v2', ['v2']).spec as Obj }, {}))).toBe('ok');
    const after = await crds.get(undefined, CRD_NAME);
    expect((after.spec as { versions: { name: string }[] }).versions.map((v) => v.name)).toEqual(['v2']);
    expect((after.status as { storedVersions: string[] }).storedVersions).toEqual(['v2']);
  });

  it('stop() interrupts a migration between pages; a new controller resumes it from spec.continueToken', async () => {
    const cms = store('', 'configmaps');
    for (let i = 0; i < 60; i++) await cms.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `batch-${i}` }, data: { i: String(i) } }, {});
    const first = startController(2);
    let stoppedAt: string | undefined;
    const stream = await store('storagemigration.cluster.io', 'storageversionmigrations').watch(undefined, {}, {
      send: (_t, o) => {
        const m = o as unknown as StorageVersionMigration;
        // Stop as soon as the first page's token is saved, as a server shutdown would.
        if (m.metadata?.name === 'interrupted' && m.spec?.continueToken && !stoppedAt) {
          stoppedAt = m.spec.continueToken;
          first.stop();
        }
      },
      error: () => undefined,
      end: () => undefined,
    });
    await first.start();
    await createMigration('interrupted', { group: '', version: 'v1', resource: 'configmaps' });
    await waitFor('the first page', async () => stoppedAt);
    await first.idle();
    stream.stop();
    const paused = await migration('interrupted');
    expect(conditionsOf(paused).Running?.status).toBe('True');
    expect(conditionsOf(paused).Succeeded).toBeUndefined();
    expect(paused.spec?.continueToken).toBeTruthy();
    await startController(2).start();
    const c = conditionsOf(await finished('interrupted'));
    expect(c.Succeeded?.status).toBe('True');
    expect(c.Running?.status).toBe('False');
    expect(logs).toEqual([]);
  });
});
