// The object-storage layer over real memory storage: keys and codec, the guaranteed update (no
// write when nothing changed, a rewrite of objects stored at an older version, removal, create when
// allowed, the retry after a concurrent write), AlreadyExists, and conversion of custom resources.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { meta, type Obj } from '../api/object.ts';
import { rejection } from '../errors/test-support.ts';
import { MemoryStorage } from '../storage/memory.ts';
import { ObjectStorage, type DecodedEvent, type ObjectStorageConfig } from './object-storage.ts';

const WIDGETS: ObjectStorageConfig = { group: 'example.cluster.io', plural: 'widgets', kind: 'Widget', namespaced: true, apiVersion: 'example.cluster.io/v2', storageApiVersion: 'example.cluster.io/v2' };

describe('ObjectStorage', () => {
  let storage: MemoryStorage;
  let objects: ObjectStorage;
  beforeEach(() => {
    storage = new MemoryStorage({ autoCompaction: false });
    objects = new ObjectStorage(storage, WIDGETS);
  });
  afterEach(async () => {
    await storage.close();
  });

  const widget = (name: string, spec: Obj = {}): Obj => ({ apiVersion: WIDGETS.apiVersion, kind: 'Widget', metadata: { name, namespace: 'ns' }, spec });

  it('stores without resourceVersion and stamps the revision on read', async () => {
    const created = await objects.create('ns', widget('a', { x: 1 }));
    const kv = await objects.getRaw('ns', 'a');
    expect(JSON.parse(kv?.value ?? '{}').metadata).toEqual({ name: 'a', namespace: 'ns' });
    expect(meta(created).resourceVersion).toBe(String(kv?.modRevision));
    expect((await objects.get('ns', 'a'))?.obj).toEqual(created);
  });

  it.each([
    { name: 'a change is written', next: (o: Obj): Obj => ({ ...o, spec: { x: 2 } }), wrote: true },
    { name: 'an equal object is not written', next: (o: Obj): Obj => ({ ...o }), wrote: false },
  ])('guaranteedUpdate: $name', async ({ next, wrote }) => {
    await objects.create('ns', widget('a', { x: 1 }));
    const before = await storage.currentRevision();
    await objects.guaranteedUpdate('ns', 'a', async (cur) => ({ obj: next(structuredClone(cur?.obj as Obj)) }));
    expect((await storage.currentRevision()) > before).toBe(wrote);
  });

  it('guaranteedUpdate reads again after a concurrent write, removes on request, creates only when allowed', async () => {
    await objects.create('ns', widget('a', { n: 0 }));
    let calls = 0;
    await objects.guaranteedUpdate('ns', 'a', async (cur) => {
      const obj = structuredClone(cur?.obj as Obj);
      if (++calls === 1) await objects.writeAt(widget('a', { n: 10 }), cur?.rev as number);
      obj.spec = { n: ((obj.spec as { n: number }).n ?? 0) + 1 };
      return { obj };
    });
    expect(calls).toBe(2);
    expect((await objects.get('ns', 'a'))?.obj.spec).toEqual({ n: 11 });
    await objects.guaranteedUpdate('ns', 'a', async (cur) => ({ obj: cur?.obj as Obj, remove: true }));
    expect(await objects.get('ns', 'a')).toBeUndefined();
    expect((await rejection(objects.guaranteedUpdate('ns', 'b', async () => ({ obj: widget('b') })))).code).toBe(404);
    const made = await objects.guaranteedUpdate('ns', 'b', async (cur) => ({ obj: cur?.obj ?? widget('b') }), { allowCreate: true });
    expect(made.created).toBe(true);
  });

  it('answers AlreadyExists, saying when the existing object is being deleted', async () => {
    await objects.create('ns', { ...widget('a'), metadata: { name: 'a', namespace: 'ns', deletionTimestamp: '2026-01-01T00:00:00Z' } });
    const e = await rejection(objects.create('ns', widget('a')));
    expect([e.code, e.reason]).toEqual([409, 'AlreadyExists']);
    expect(e.message).toContain('being deleted');
  });

  it('converts objects stored at an older version, marks them stale, and rewrites them even when unchanged', async () => {
    await storage.create(objects.key('ns', 'old'), JSON.stringify({ ...widget('old'), apiVersion: 'example.cluster.io/v1' }));
    const read = await objects.get('ns', 'old');
    expect(read?.stale).toBe(true);
    expect(read?.obj.apiVersion).toBe('example.cluster.io/v2');
    await objects.guaranteedUpdate('ns', 'old', async (cur) => ({ obj: cur?.obj as Obj }));
    expect(JSON.parse((await objects.getRaw('ns', 'old'))?.value ?? '{}').apiVersion).toBe('example.cluster.io/v2');
  });

  it.each([
    { name: 'a built-in (the written object reused)', config: { ...WIDGETS, storageApiVersion: undefined } },
    { name: 'a custom resource (converted)', config: WIDGETS },
  ])('a watch event of a write equals the stored text decoded: $name', async ({ config }) => {
    objects = new ObjectStorage(storage, config);
    const events: DecodedEvent[] = [];
    const w = await objects.watch(objects.prefix('ns'), await storage.currentRevision(), (ev) => events.push(ev), () => undefined);
    const created = await objects.create('ns', widget('a', { x: { y: [1, 2] } }));
    await objects.guaranteedUpdate('ns', 'a', async (cur) => ({ obj: { ...(cur?.obj as Obj), spec: { x: { y: [3] } } } }));
    for (let i = 0; i < 100 && events.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    w.cancel();
    const kv = await objects.getRaw('ns', 'a');
    expect(events.map((e) => e.cur)).toEqual([
      { ...created, metadata: { ...(created.metadata as Obj), resourceVersion: meta(created).resourceVersion } },
      { ...JSON.parse(kv?.value ?? '{}'), apiVersion: WIDGETS.apiVersion, kind: 'Widget', metadata: { name: 'a', namespace: 'ns', resourceVersion: String(kv?.modRevision) } },
    ]);
    expect(events[1].prev?.spec).toEqual({ x: { y: [1, 2] } });
  });
});
