// In process over memory storage (the whole server as bootstrap builds it): the events.cluster.io
// Event store keeps its objects with core v1 Events (written through one, read through the other,
// listed and watched through both), and the stores whose strategy allows it create on update
// (upstream's AllowCreateOnUpdate for Events; a ConfigMap still answers 404); admission's
// equivalent-resource mapper takes the two Event resources as one (upstream keys it by storage).
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../errors/api-error.ts';
import { TokenAuthenticator } from '../http/auth.ts';
import { buildApiServer, loadGenerated, type BuiltServer } from '../http/bootstrap.ts';
import { ServedEquivalentResources } from '../crd/equivalent-resources.ts';
import type { Obj } from '../api/object.ts';
import type { Store } from '../registry/store.ts';
import { openStorage, type Storage } from '../storage/index.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
let storage: Storage;
let built: BuiltServer;
let core: Store;
let events: Store;

beforeAll(async () => {
  const gen = await loadGenerated(join(ROOT, 'out'));
  storage = openStorage({ kind: 'memory' });
  built = await buildApiServer(gen, { storage, authenticator: TokenAuthenticator.fromCsv(''), admission: false, customResources: false, storageVersionMigration: false, garbageCollection: false });
  core = built.registry.storeFor('', 'events')!;
  events = built.registry.storeFor('events.cluster.io', 'events')!;
});

afterAll(async () => {
  await built?.stop();
  await storage?.close();
});

const micro = '2026-01-01T10:00:00.000000Z';

function eventsApiEvent(name: string): Obj {
  return {
    apiVersion: 'events.cluster.io/v1',
    kind: 'Event',
    metadata: { name, namespace: 'default' },
    eventTime: micro,
    reportingController: 'cluster.io/checker',
    reportingInstance: 'checker-0',
    action: 'Check',
    reason: 'Suspicious',
    regarding: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'cfg' },
    note: 'key a is suspicious',
    type: 'Warning',
  };
}

function coreEvent(name: string): Obj {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'default' },
    involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'cfg' },
    reason: 'Updated',
    message: 'config changed',
    source: { component: 'cfg-watcher' },
    firstTimestamp: '2026-01-01T10:00:00Z',
    lastTimestamp: '2026-01-01T10:05:00Z',
    count: 2,
    type: 'Normal',
  };
}

describe('one storage for both Event APIs', () => {
  it('keeps both stores on the core keys', () => {
    expect(events.prefix('default')).toBe(core.prefix('default'));
    expect(events.key('default', 'x')).toBe(core.key('default', 'x'));
  });

  it('an event written through events.cluster.io reads through core v1 with core names', async () => {
    const created = await events.create('default', eventsApiEvent('api.1'));
    expect(created.object).toMatchObject({ apiVersion: 'events.cluster.io/v1', note: 'key a is suspicious', reportingController: 'cluster.io/checker' });
    const got = await core.get('default', 'api.1');
    expect(got).toMatchObject({
      apiVersion: 'v1',
      involvedObject: { kind: 'ConfigMap', name: 'cfg' },
      message: 'key a is suspicious',
      reportingComponent: 'cluster.io/checker',
      eventTime: micro,
      metadata: { uid: (created.object.metadata as Obj).uid, resourceVersion: (created.object.metadata as Obj).resourceVersion },
    });
    expect(got).not.toHaveProperty('note');
    expect(got).not.toHaveProperty('regarding');
  });

  it('a core v1 event reads through events.cluster.io with the deprecated fields', async () => {
    await core.create('default', coreEvent('legacy.1'));
    const got = await events.get('default', 'legacy.1');
    expect(got).toMatchObject({
      apiVersion: 'events.cluster.io/v1',
      regarding: { kind: 'ConfigMap', name: 'cfg' },
      note: 'config changed',
      deprecatedSource: { component: 'cfg-watcher' },
      deprecatedFirstTimestamp: '2026-01-01T10:00:00Z',
      deprecatedLastTimestamp: '2026-01-01T10:05:00Z',
      deprecatedCount: 2,
    });
    const listed = await events.list('default', { fieldSelector: 'source=cfg-watcher' });
    expect(listed.items.map((i) => (i.metadata as Obj).name)).toEqual(['legacy.1']);
  });

  it('a watch through events.cluster.io sees a core write, converted', async () => {
    const seen: Obj[] = [];
    const stream = await events.watch('default', { resourceVersion: String(await storage.currentRevision()) }, {
      send: (type, obj) => void (type === 'ADDED' && seen.push(obj)),
      error: () => undefined,
      end: () => undefined,
    });
    try {
      await core.create('default', coreEvent('watched.1'));
      for (let i = 0; i < 50 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ apiVersion: 'events.cluster.io/v1', kind: 'Event', note: 'config changed', metadata: { name: 'watched.1' } });
    } finally {
      stream.stop();
    }
  });
});

describe('create on update (upstream AllowCreateOnUpdate)', () => {
  it.each([
    ['core v1', () => core, coreEvent('put.core')],
    ['events.cluster.io', () => events, eventsApiEvent('put.events')],
  ] as const)('a PUT of a missing %s Event creates it', async (_name, store, body) => {
    const name = (body.metadata as Obj).name as string;
    const res = await store().update('default', name, structuredClone({ ...body, metadata: { ...(body.metadata as Obj), resourceVersion: '12345' } }));
    expect(res.created).toBe(true);
    const m = res.object.metadata as Obj;
    expect(m.uid).toEqual(expect.any(String));
    expect(m.creationTimestamp).toEqual(expect.any(String));
    expect(Number(m.resourceVersion)).toBeGreaterThan(0);
    expect((await store().get('default', name)).metadata).toMatchObject({ uid: m.uid });
    // the next PUT updates it
    const again = await store().update('default', name, structuredClone(res.object));
    expect(again.created).toBeUndefined();
  });

  it('validates what it creates as a create', async () => {
    const bad = { ...eventsApiEvent('put.bad'), deprecatedCount: 3 };
    const e = await events.update('default', 'put.bad', bad).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).code).toBe(422);
    await expect(events.get('default', 'put.bad')).rejects.toMatchObject({ code: 404 });
  });

  it('a PUT of a missing ConfigMap is still 404', async () => {
    const cms = built.registry.storeFor('', 'configmaps')!;
    const e = await cms.update('default', 'nope', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nope' } }).catch((x: unknown) => x);
    expect((e as ApiError).code).toBe(404);
  });
});

describe('equivalent resources for admission (matchPolicy Equivalent)', () => {
  const coreGvr = { group: '', version: 'v1', resource: 'events' };
  const apiGvr = { group: 'events.cluster.io', version: 'v1', resource: 'events' };

  it('maps each Event resource to both, and other built-ins to themselves', () => {
    const mapper = new ServedEquivalentResources(built.registry, undefined);
    for (const gvr of [coreGvr, apiGvr]) expect(mapper.equivalentResourcesFor(gvr)).toEqual(expect.arrayContaining([coreGvr, apiGvr]));
    expect(mapper.equivalentResourcesFor(coreGvr)).toHaveLength(2);
    const cms = { group: '', version: 'v1', resource: 'configmaps' };
    expect(mapper.equivalentResourcesFor(cms)).toEqual([cms]);
    expect(mapper.kindFor(apiGvr, '')).toEqual({ group: 'events.cluster.io', version: 'v1', kind: 'Event' });
  });

  it('converts objects to the version of the webhook that registered', async () => {
    const mapper = new ServedEquivalentResources(built.registry, undefined);
    const [asCore] = (await mapper.convert([eventsApiEvent('conv.1')], coreGvr)) as Obj[];
    expect(asCore).toMatchObject({ apiVersion: 'v1', message: 'key a is suspicious', involvedObject: { name: 'cfg' }, reportingComponent: 'cluster.io/checker' });
    const [asApi] = (await mapper.convert([coreEvent('conv.2')], apiGvr)) as Obj[];
    expect(asApi).toMatchObject({ apiVersion: 'events.cluster.io/v1', note: 'config changed', deprecatedCount: 2 });
  });
});
