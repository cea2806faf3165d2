// The event recorder in process over memory storage: an Event about a namespaced object lands in
// its namespace, one about a cluster-scoped object in `default` without a namespace in its
// reference, and a failed write is logged, never thrown.
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenAuthenticator } from '../http/auth.ts';
import { buildApiServer, loadGenerated, type BuiltServer } from '../http/bootstrap.ts';
import type { Obj } from '../api/object.ts';
import { openStorage, type Storage } from '../storage/index.ts';
import { EventRecorder, type RecordedEvent } from './recorder.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
let storage: Storage;
let built: BuiltServer;

beforeAll(async () => {
  const gen = await loadGenerated(join(ROOT, 'out'));
  storage = openStorage({ kind: 'memory' });
  built = await buildApiServer(gen, { storage, authenticator: TokenAuthenticator.fromCsv(''), admission: false, customResources: false, storageVersionMigration: false, garbageCollection: false });
});

afterAll(async () => {
  await built?.stop();
  await storage?.close();
});

const cases: { name: string; event: RecordedEvent; namespace: string; reference: Record<string, string> }[] = [
  {
    name: 'namespaced object',
    event: { involved: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team', name: 'cfg', uid: 'u1' }, type: 'Warning', reason: 'OwnerRefInvalidNamespace', message: 'ownerRef does not exist' },
    namespace: 'team',
    reference: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team', name: 'cfg', uid: 'u1' },
  },
  {
    name: 'cluster-scoped object',
    event: { involved: { apiVersion: 'storage.cluster.io/v1', kind: 'StorageClass', namespace: '', name: 'fast', uid: 'u2' }, type: 'Normal', reason: 'Seen', message: 'seen' },
    namespace: 'default',
    reference: { apiVersion: 'storage.cluster.io/v1', kind: 'StorageClass', name: 'fast', uid: 'u2' },
  },
];

describe('event recorder', () => {
  for (const c of cases) {
    it(c.name, async () => {
      if (c.namespace !== 'default') await built.registry.storeFor('', 'namespaces')?.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: c.namespace } });
      const logged: string[] = [];
      await new EventRecorder(built.registry, 'test-controller', (m) => logged.push(m)).record(c.event, new Date('2026-11-24T12:00:00Z'));
      expect(logged).toEqual([]);
      const items = (await built.registry.storeFor('', 'events')!.list(c.namespace, {})).items as Obj[];
      const got = items.find((e) => (e.involvedObject as { uid?: string }).uid === c.reference.uid) as Obj;
      expect(got.involvedObject).toEqual(c.reference);
      expect(got).toMatchObject({ type: c.event.type, reason: c.event.reason, message: c.event.message, source: { component: 'test-controller' }, count: 1, firstTimestamp: '2026-11-24T12:00:00Z' });
      expect((got.metadata as { name: string }).name).toBe(`${c.reference.name}.${(BigInt(Date.parse('2026-11-24T12:00:00Z')) * 1_000_000n).toString(16)}`);
    });
  }

  it('a write that fails is logged, not thrown', async () => {
    const logged: string[] = [];
    const event: RecordedEvent = { involved: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'absent-ns', name: 'cfg', uid: 'u3' }, type: 'Warning', reason: 'R', message: 'm' };
    await new EventRecorder(built.registry, 'test-controller', (m) => logged.push(m)).record(event);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/could not record event R on ConfigMap absent-ns\/cfg/);
  });
});
