// The generic Store with a custom resource converter, in-process over the memory backend: what the
// e2e suite cannot force — a converter whose answers arrive out of order (watch events must still
// be delivered in order), a converter failure mid-stream (ERROR event, stream ends), and the
// rewrite of an unchanged object stored at an older version.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { namespaceResource } from '../../out/routes/namespace.ts';
import * as validators from '../../out/validators/index.ts';
import { ApiError } from '../errors/api-error.ts';
import { lazyValidator } from '../http/bootstrap.ts';
import { Registry } from '../registry/registry.ts';
import type { Store, WatchEventType } from '../registry/store.ts';
import type { ObjectConverter } from '../object-storage/conversion.ts';
import { MemoryStorage } from '../storage/memory.ts';
import { buildCustomResourceVersion } from './custom-resource.ts';
import type { CustomResourceDefinition } from './types.ts';

type Obj = Record<string, unknown>;
const G = 'store.example.cluster.io';

const crd: CustomResourceDefinition = {
  metadata: { name: `gadgets.${G}`, uid: 'u1', generation: 1 },
  spec: {
    group: G,
    scope: 'Cluster',
    names: { plural: 'gadgets', kind: 'Gadget' },
    versions: ['v1', 'v2'].map((name) => ({
      name,
      served: true,
      storage: name === 'v1',
      schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-cluster-preserve-unknown-fields': true } } } },
    })),
  },
};

/** v1 `spec.size` ↔ v2 `spec.volume`, answering after `delay(name)` ms; `boom` cannot be converted. */
class SlowConverter implements ObjectConverter {
  calls = 0;
  constructor(private readonly delay: (name: string) => number) {}
  async convert(objects: readonly Obj[], apiVersion: string): Promise<Obj[]> {
    const out: Obj[] = [];
    for (const o of objects) {
      if (o.apiVersion === apiVersion) {
        out.push(o);
        continue;
      }
      this.calls++;
      const name = String((o.metadata as Obj).name);
      await new Promise((r) => setTimeout(r, this.delay(name)));
      if (name === 'boom') throw new ApiError(500, '', `conversion webhook for ${String(o.apiVersion)}, Kind=Gadget failed: boom`);
      const spec = { ...(o.spec as Obj) };
      if (apiVersion.endsWith('/v2')) {
        spec.volume = spec.size;
        delete spec.size;
      } else {
        spec.size = spec.volume;
        delete spec.volume;
      }
      out.push({ ...o, apiVersion, spec });
    }
    return out;
  }
}

describe('Store with a converter', () => {
  let storage: MemoryStorage;
  let registry: Registry;
  let conv: SlowConverter;
  let v1: Store;
  let v2: Store;

  const store = (version: string, storageVersion: string): Store =>
    registry.newStore(buildCustomResourceVersion(crd, version).descriptor, buildCustomResourceVersion(crd, version), {}, {
      storageApiVersion: `${G}/${storageVersion}`,
      converter: conv,
    });

  beforeEach(async () => {
    storage = new MemoryStorage({ autoCompaction: false });
    registry = new Registry(storage, [{ descriptor: namespaceResource, validator: lazyValidator(() => validators.Namespace.createValidator()) }], { featureGates: {} });
    await registry.init();
    // the first object converts slowest: answers come back in reverse order
    conv = new SlowConverter((name) => ({ a: 60, b: 30, c: 0 })[name] ?? 0);
    v1 = store('v1', 'v1');
    v2 = store('v2', 'v1');
  });
  afterEach(async () => {
    await storage.close();
  });

  it('delivers watch events in order although their conversions finish out of order', async () => {
    const events: [WatchEventType, Obj][] = [];
    let ended = false;
    const w = await v2.watch(undefined, {}, { send: (t, o) => events.push([t, o]), error: (e) => events.push(['ERROR', e.toStatus() as unknown as Obj]), end: () => (ended = true) });
    for (const name of ['a', 'b', 'c']) await v1.create(undefined, { apiVersion: `${G}/v1`, kind: 'Gadget', metadata: { name }, spec: { size: name } });
    for (let i = 0; i < 50 && events.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
    w.stop();
    expect(ended).toBe(false);
    expect(events.map(([t, o]) => [t, o.apiVersion, (o.metadata as Obj).name, o.spec])).toEqual([
      ['ADDED', `${G}/v2`, 'a', { volume: 'a' }],
      ['ADDED', `${G}/v2`, 'b', { volume: 'b' }],
      ['ADDED', `${G}/v2`, 'c', { volume: 'c' }],
    ]);
  });

  it('a conversion failure on an event is an InternalError ERROR event that ends the stream', async () => {
    const events: [WatchEventType, Obj][] = [];
    let ended = false;
    await v2.watch(undefined, {}, { send: (t, o) => events.push([t, o]), error: (e) => events.push(['ERROR', e.toStatus() as unknown as Obj]), end: () => (ended = true) });
    await v1.create(undefined, { apiVersion: `${G}/v1`, kind: 'Gadget', metadata: { name: 'boom' }, spec: { size: 'x' } });
    await v1.create(undefined, { apiVersion: `${G}/v1`, kind: 'Gadget', metadata: { name: 'c' }, spec: { size: 'y' } });
    for (let i = 0; i < 50 && !ended; i++) await new Promise((r) => setTimeout(r, 10));
    expect(ended).toBe(true);
    expect(events).toEqual([
      [
        'ERROR',
        {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: `Internal error occurred: conversion webhook for ${G}/v1, Kind=Gadget failed: boom`,
          reason: 'InternalError',
          details: { causes: [{ message: `conversion webhook for ${G}/v1, Kind=Gadget failed: boom` }] },
          code: 500,
        },
      ],
    ]);
  });

  it('reads convert, writes store at the storage version, and failures are 500 without reason', async () => {
    const created = await v2.create(undefined, { apiVersion: `${G}/v2`, kind: 'Gadget', metadata: { name: 'a' }, spec: { volume: 3 } });
    expect(created.object).toMatchObject({ apiVersion: `${G}/v2`, spec: { volume: 3 } });
    const raw = JSON.parse((await storage.get(v1.key(undefined, 'a'))).kv?.value ?? '{}') as Obj;
    expect(raw).toMatchObject({ apiVersion: `${G}/v1`, spec: { size: 3 } });
    expect(raw.metadata).not.toHaveProperty('resourceVersion');
    expect(await v2.get(undefined, 'a')).toMatchObject({ apiVersion: `${G}/v2`, spec: { volume: 3 }, metadata: { resourceVersion: created.object.metadata && (created.object.metadata as Obj).resourceVersion } });
    expect(JSON.parse(await v2.getJson(undefined, 'a'))).toMatchObject({ kind: 'Gadget', apiVersion: `${G}/v2`, spec: { volume: 3 } });
    const list = await v2.list(undefined, {});
    expect(list.items.map((i) => i.spec)).toEqual([{ volume: 3 }]);

    await storage.create(v1.key(undefined, 'boom'), JSON.stringify({ apiVersion: `${G}/v1`, kind: 'Gadget', metadata: { name: 'boom' }, spec: {} }));
    const err = await v2.get(undefined, 'boom').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).toStatus()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `conversion webhook for ${G}/v1, Kind=Gadget failed: boom`, code: 500 });
  });

  it('an unchanged update rewrites an object stored at another version; a current one is left alone', async () => {
    await v1.create(undefined, { apiVersion: `${G}/v1`, kind: 'Gadget', metadata: { name: 'a' }, spec: { size: 1 } });
    // the storage version moves to v2: a store of the new storage version reads the v1 object
    const v2s = store('v2', 'v2');
    const cur = await v2s.get(undefined, 'a');
    const rewritten = await v2s.update(undefined, 'a', structuredClone(cur));
    expect(Number((rewritten.object.metadata as Obj).resourceVersion)).toBeGreaterThan(Number((cur.metadata as Obj).resourceVersion));
    const raw = JSON.parse((await storage.get(v2s.key(undefined, 'a'))).kv?.value ?? '{}') as Obj;
    expect(raw).toMatchObject({ apiVersion: `${G}/v2`, spec: { volume: 1 } });
    const again = await v2s.update(undefined, 'a', structuredClone(rewritten.object));
    expect((again.object.metadata as Obj).resourceVersion).toBe((rewritten.object.metadata as Obj).resourceVersion);
  });
});
