// The generic store in-process over the memory backend: what needs compaction or exact timing,
// which the HTTP e2e suite cannot force (410 Expired paths, future resourceVersions, generation).

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configMapResource } from '../../out/routes/configmap.ts';
import { namespaceResource } from '../../out/routes/namespace.ts';
import { cSIDriverResource } from '../../out/routes/csidriver.ts';
import { validatingWebhookConfigurationResource } from '../../out/routes/validatingwebhookconfiguration.ts';
import * as validators from '../../out/validators/index.ts';
import { rejection as rejects } from '../errors/test-support.ts';
import { lazyValidator } from '../http/bootstrap.ts';
import { MemoryStorage } from '../storage/memory.ts';
import { Registry } from './registry.ts';
import type { Store, WatchEventType } from './store.ts';
import type { Obj } from '../api/object.ts';

describe('generic store', () => {
  let storage: MemoryStorage;
  let registry: Registry;
  let cms: Store;

  beforeEach(async () => {
    storage = new MemoryStorage({ autoCompaction: false });
    registry = new Registry(
      storage,
      [
        { descriptor: configMapResource, validator: lazyValidator(() => validators.ConfigMap.createValidator()) },
        { descriptor: namespaceResource, validator: lazyValidator(() => validators.Namespace.createValidator()) },
        { descriptor: cSIDriverResource, validator: lazyValidator(() => validators.CSIDriver.createValidator()) },
        { descriptor: validatingWebhookConfigurationResource, validator: lazyValidator(() => validators.ValidatingWebhookConfiguration.createValidator()) },
      ],
      { featureGates: { WatchList: true }, futureRevisionWaitMs: 200 },
    );
    await registry.init();
    cms = registry.storeFor('', 'configmaps') as Store;
  });
  afterEach(async () => {
    await storage.close();
  });

  it('answers a watch from a compacted resourceVersion with one ERROR event (410 Expired)', async () => {
    const a = await cms.create('default', { metadata: { name: 'a' } });
    await cms.update('default', 'a', { metadata: { name: 'a' }, data: { x: '1' } });
    const rv = Number(a.object.metadata && (a.object.metadata as { resourceVersion: string }).resourceVersion);
    await storage.compact(await storage.currentRevision());
    const events: [WatchEventType, Obj][] = [];
    let ended = false;
    await cms.watch('default', { resourceVersion: String(rv) }, { send: (t, o) => events.push([t, o]), error: (e) => events.push(['ERROR', e.toStatus() as unknown as Obj]), end: () => (ended = true) });
    expect(ended).toBe(true);
    expect(events).toHaveLength(1);
    expect(events[0][0]).toBe('ERROR');
    expect(events[0][1]).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 });
    expect(String(events[0][1].message)).toMatch(new RegExp(`^too old resource version: ${rv} \\(\\d+\\)$`));
  });

  it('answers an exact list at a compacted resourceVersion with 410, and an expired continue with a fresh token', async () => {
    for (const n of ['a', 'b', 'c']) await cms.create('default', { metadata: { name: n } });
    const p1 = await cms.list('default', { limit: 1 });
    const rv = p1.metadata.resourceVersion;
    await cms.create('default', { metadata: { name: 'd' } });
    await storage.compact(await storage.currentRevision());
    const exact = await rejects(cms.list('default', { resourceVersion: rv, resourceVersionMatch: 'Exact' }));
    expect(exact.code).toBe(410);
    expect(exact.message).toBe('The resourceVersion for the provided list is too old.');
    const legacy = await rejects(cms.list('default', { resourceVersion: rv, limit: 2 }));
    expect(legacy.code).toBe(410);
    const cont = await rejects(cms.list('default', { limit: 1, continue: p1.metadata.continue }));
    expect(cont.code).toBe(410);
    expect(cont.reason).toBe('Expired');
    expect(cont.message).toMatch(/^The provided continue parameter is too old to display a consistent list result\./);
    const fresh = cont.toStatus().metadata.continue as string;
    const next = await cms.list('default', { limit: 10, continue: fresh });
    expect(next.items.map((i) => (i.metadata as { name: string }).name)).toEqual(['b', 'c', 'd']);
  });

  it('answers a resourceVersion ahead of the store with 504 Too large resource version', async () => {
    const cur = await storage.currentRevision();
    const e = await rejects(cms.get('default', 'x', { resourceVersion: String(cur + 100) }));
    expect(e.code).toBe(504);
    expect(e.message).toBe(`Timeout: Too large resource version: ${cur + 100}, current: ${cur}`);
    expect(e.details?.causes?.[0].reason).toBe('ResourceVersionTooLarge');
  });

  it('requires a resourceVersion on update where the descriptor says so', async () => {
    const drivers = registry.storeFor('storage.cluster.io', 'csidrivers') as Store;
    await drivers.create(undefined, { apiVersion: 'storage.cluster.io/v1', kind: 'CSIDriver', metadata: { name: 'd.example.com' }, spec: {} });
    const e = await rejects(drivers.update(undefined, 'd.example.com', { apiVersion: 'storage.cluster.io/v1', kind: 'CSIDriver', metadata: { name: 'd.example.com' }, spec: {} }));
    expect(e.code).toBe(422);
    expect(e.message).toBe('csidrivers.storage.cluster.io "d.example.com" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update');
    expect(e.details?.kind).toBe('csidrivers');
  });

  it('maintains generation where the descriptor says so, and not elsewhere', async () => {
    const hooks = registry.storeFor('admissionregistration.cluster.io', 'validatingwebhookconfigurations') as Store;
    const c = await hooks.create(undefined, { apiVersion: 'admissionregistration.cluster.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'h' } });
    expect((c.object.metadata as { generation: number }).generation).toBe(1);
    const meta = await hooks.update(undefined, 'h', { ...c.object, metadata: { ...(c.object.metadata as object), labels: { a: 'b' } } });
    expect((meta.object.metadata as { generation: number }).generation).toBe(1);
    const cm = await cms.create('default', { metadata: { name: 'g' } });
    expect((cm.object.metadata as { generation?: number }).generation).toBeUndefined();
  });

  it('forbids creating into a terminating namespace', async () => {
    const ns = registry.storeFor('', 'namespaces') as Store;
    await ns.create(undefined, { metadata: { name: 'term' } });
    await cms.create('term', { metadata: { name: 'keep', finalizers: ['example.com/hold'] } });
    const d = await ns.delete(undefined, 'term');
    expect(d.kind).toBe('object');
    const e = await rejects(cms.create('term', { metadata: { name: 'new' } }));
    expect(e.code).toBe(403);
    expect(e.message).toBe('configmaps "new" is forbidden: unable to create new content in namespace term because it is being terminated');
  });
});
