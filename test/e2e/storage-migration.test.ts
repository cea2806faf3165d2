// StorageVersionMigration against a real server process with SQLite storage: 1,200 custom resources
// stored at v1, the CRD's storage version switched to v2, a migration that rewrites them page by
// page (Running with spec.continueToken, then Succeeded), the storage file itself read to check the
// stored apiVersion before and after, then v1 dropped from status.storedVersions and spec.versions
// (refused while still stored). Also a built-in resource and an unknown one.

import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, TestServer, type WatchEventLine } from './harness.ts';

const GROUP = 'migration.example.cluster.io';
const CRDS = '/apis/apiextensions.cluster.io/v1/customresourcedefinitions';
const CRD_NAME = `gadgets.${GROUP}`;
const NS = 'svm';
const SVMS = '/apis/storagemigration.cluster.io/v1alpha1/storageversionmigrations';
const COUNT = 1200;

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
}

function crdSpec(storage: 'v1' | 'v2', versions: ('v1' | 'v2')[]): object {
  const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { n: { type: 'integer' } } } } } };
  return {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
    conversion: { strategy: 'None' },
    versions: versions.map((name) => ({ name, served: true, storage: name === storage, schema })),
  };
}

/** The apiVersion each gadget is stored at, read from the SQLite file (latest row per key); the server must be stopped. */
function storedApiVersions(dataDir: string): Map<string, string> {
  const db = new Database(join(dataDir, 'clusterspec.db'), { readonly: true, fileMustExist: true });
  try {
    const prefix = `/${GROUP}/gadgets/`;
    const rows = db
      .prepare<[string, string], { name: string; value: string }>(
        `SELECT k.name, k.value FROM kv k
           JOIN (SELECT name, MAX(id) AS id FROM kv WHERE name >= ? AND name < ? GROUP BY name) l ON k.id = l.id
          WHERE k.deleted = 0`,
      )
      .all(prefix, prefix.slice(0, -1) + '0');
    return new Map(rows.map((r) => [r.name.slice(prefix.length), (JSON.parse(r.value) as { apiVersion: string }).apiVersion]));
  } finally {
    db.close();
  }
}

function countBy(m: Map<string, string>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of m.values()) out[v] = (out[v] ?? 0) + 1;
  return out;
}

async function waitFinished(s: TestServer, name: string): Promise<{ status: { conditions: Condition[]; resourceVersion?: string }; spec: { continueToken?: string } }> {
  return eventually(async () => {
    const g = await s.get(`${SVMS}/${name}`);
    const conds = (g.json?.status?.conditions ?? []) as Condition[];
    return conds.some((c) => (c.type === 'Succeeded' || c.type === 'Failed') && c.status === 'True') ? g.json : undefined;
  }, 90_000, 200);
}

const byType = (conds: Condition[]): Record<string, Condition> => Object.fromEntries(conds.map((c) => [c.type, c]));

describe('StorageVersionMigration (sqlite)', () => {
  let s: TestServer;
  let dataDir: string;

  beforeAll(async () => {
    s = await TestServer.start('sqlite');
    dataDir = s.dataDir;
    expect((await s.post('/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
    const c = await s.post(CRDS, { apiVersion: 'apiextensions.cluster.io/v1', kind: 'CustomResourceDefinition', metadata: { name: CRD_NAME }, spec: crdSpec('v1', ['v1', 'v2']) });
    expect(c.status).toBe(201);
    await eventually(async () => {
      const g = await s.get(`${CRDS}/${CRD_NAME}`);
      return (g.json.status?.conditions ?? []).some((x: Condition) => x.type === 'Established' && x.status === 'True');
    }, 20_000);
    await eventually(async () => (await s.get(`/apis/${GROUP}/v1/namespaces/${NS}/gadgets`)).status === 200, 20_000);
    for (let i = 0; i < COUNT; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, COUNT - i) }, (_, j) =>
          s.post(`/apis/${GROUP}/v1/namespaces/${NS}/gadgets`, { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: `g-${i + j}` }, spec: { n: i + j } }),
        ),
      );
      expect(batch.map((r) => r.status).filter((st) => st !== 201)).toEqual([]);
    }
  }, 300_000);

  afterAll(async () => {
    await s?.stop();
  });

  it('stores every gadget at v1 before the switch (read from the SQLite file)', async () => {
    await s.stop(false);
    expect(countBy(storedApiVersions(dataDir))).toEqual({ [`${GROUP}/v1`]: COUNT });
    s = await TestServer.start('sqlite', dataDir, [], true);
  });

  it('switches the storage version to v2: storedVersions lists both', async () => {
    const crd = (await s.get(`${CRDS}/${CRD_NAME}`)).json;
    const u = await s.put(`${CRDS}/${CRD_NAME}`, { ...crd, spec: crdSpec('v2', ['v1', 'v2']) });
    expect(u.status).toBe(200);
    expect(u.json.status.storedVersions).toEqual(['v1', 'v2']);
  });

  it('migrates all gadgets page by page: Running with spec.continueToken, then Succeeded', async () => {
    const w = await s.startWatch(`${SVMS}?watch=true&timeoutSeconds=90`, 90_000, (ev) =>
      ev.some((e) => (e.object?.status?.conditions ?? []).some((c: Condition) => c.type === 'Succeeded' && c.status === 'True')),
    );
    const c = await s.post(SVMS, { apiVersion: 'storagemigration.cluster.io/v1alpha1', kind: 'StorageVersionMigration', metadata: { name: 'gadgets' }, spec: { resource: { group: GROUP, version: 'v2', resource: 'gadgets' } } });
    expect(c.status).toBe(201);
    const done = await waitFinished(s, 'gadgets');
    const { events } = await w.result;
    const conds = byType(done.status.conditions);
    expect(conds.Succeeded).toMatchObject({ status: 'True', reason: 'StorageVersionMigrationSucceeded' });
    expect(conds.Running).toMatchObject({ status: 'False', reason: 'StorageVersionMigrationInProgress' });
    expect(conds.Failed).toBeUndefined();
    expect(Number.isNaN(Date.parse(conds.Succeeded.lastUpdateTime ?? ''))).toBe(false);
    expect(done.status.resourceVersion).toMatch(/^[0-9]+$/);
    expect(done.spec.continueToken).toBeUndefined();
    // 1,200 objects in pages of 500: the tokens after the first two pages were visible while Running.
    const running = (e: WatchEventLine): boolean => (e.object?.status?.conditions ?? []).some((x: Condition) => x.type === 'Running' && x.status === 'True');
    const tokens = new Set(events.filter((e) => running(e) && e.object.spec.continueToken).map((e) => e.object.spec.continueToken as string));
    expect(tokens.size).toBe(2);
  });

  it('refuses to drop v1 from spec.versions while status.storedVersions lists it', async () => {
    const crd = (await s.get(`${CRDS}/${CRD_NAME}`)).json;
    const r = await s.put(`${CRDS}/${CRD_NAME}`, { ...crd, spec: crdSpec('v2', ['v2']) });
    expect(r.status).toBe(422);
    expect(r.json.message).toContain('status.storedVersions[0]: Invalid value: "v1": missing from spec.versions; v1 was previously a storage version');
    const noStorage = await s.put(`${CRDS}/${CRD_NAME}/status`, { ...crd, status: { ...crd.status, storedVersions: ['v1'] } });
    expect(noStorage.status).toBe(422);
    expect(noStorage.json.message).toContain('must have the storage version v2');
  });

  it('has rewritten every gadget at v2 in storage (read from the SQLite file)', async () => {
    await s.stop(false);
    expect(countBy(storedApiVersions(dataDir))).toEqual({ [`${GROUP}/v2`]: COUNT });
    s = await TestServer.start('sqlite', dataDir, [], true);
  });

  it('drops v1 from status.storedVersions, then from spec.versions; the gadgets stay served at v2', async () => {
    const crd = (await s.get(`${CRDS}/${CRD_NAME}`)).json;
    const st = await s.put(`${CRDS}/${CRD_NAME}/status`, { ...crd, status: { ...crd.status, storedVersions: ['v2'] } });
    expect(st.status).toBe(200);
    expect(st.json.status.storedVersions).toEqual(['v2']);
    const u = await s.put(`${CRDS}/${CRD_NAME}`, { ...st.json, spec: crdSpec('v2', ['v2']) });
    expect(u.status).toBe(200);
    expect(u.json.spec.versions.map((v: { name: string }) => v.name)).toEqual(['v2']);
    await eventually(async () => (await s.get(`/apis/${GROUP}/v1/namespaces/${NS}/gadgets`)).status === 404, 20_000);
    const list = await s.get(`/apis/${GROUP}/v2/namespaces/${NS}/gadgets`);
    expect(list.status).toBe(200);
    expect(list.json.items.length).toBe(COUNT);
    expect(list.json.items.every((o: { apiVersion?: string }) => o.apiVersion === undefined || o.apiVersion === `${GROUP}/v2`)).toBe(true);
  });

  it('migrates a built-in resource (configmaps)', async () => {
    expect((await s.post(`/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'cm' }, data: { a: 'b' } })).status).toBe(201);
    expect((await s.post(SVMS, { metadata: { name: 'configmaps' }, spec: { resource: { group: '', version: 'v1', resource: 'configmaps' } } })).status).toBe(201);
    const conds = byType((await waitFinished(s, 'configmaps')).status.conditions);
    expect(conds.Succeeded?.status).toBe('True');
    expect(conds.Running?.status).toBe('False');
  });

  it('fails a migration of a resource the server does not serve', async () => {
    expect((await s.post(SVMS, { metadata: { name: 'missing' }, spec: { resource: { group: 'nothing.cluster.io', version: 'v1', resource: 'widgets' } } })).status).toBe(201);
    const conds = byType((await waitFinished(s, 'missing')).status.conditions);
    expect(conds.Failed).toMatchObject({ status: 'True', reason: 'StorageVersionMigrationFailed', message: 'resource does not exist in discovery: widgets in nothing.cluster.io/v1' });
    expect(conds.Succeeded).toBeUndefined();
    expect(conds.Running).toBeUndefined();
  });
});
