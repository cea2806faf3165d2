// The monitors over a registry on memory storage whose watches the test can end: a reopened watch
// lists again and the listing tells which objects went while it was down; a store registered later
// is watched from the next sync, and one unregistered is reported removed.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configMapResource } from '../../out/routes/configmap.ts';
import { namespaceResource } from '../../out/routes/namespace.ts';
import { storageClassResource } from '../../out/routes/storageclass.ts';
import * as validators from '../../out/validators/index.ts';
import { lazyValidator } from '../http/bootstrap.ts';
import { metaOf } from '../api/object.ts';
import { Registry } from '../registry/registry.ts';
import type { Store } from '../registry/store.ts';
import { StorageError, type Storage } from '../storage/interface.ts';
import { MemoryStorage } from '../storage/memory.ts';
import { ResourceMonitors } from './resource-monitors.ts';

/** Memory storage whose open watches can be ended from the test (as a closed connection ends them). */
function endableStorage(inner: MemoryStorage): { storage: Storage; endWatches(): void } {
  const enders: (() => void)[] = [];
  const storage = new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'watch') {
        return async (...args: Parameters<Storage['watch']>) => {
          const handle = await target.watch(...args);
          const onError = args[3];
          enders.push(() => {
            handle.cancel();
            onError?.(new StorageError('Unavailable', 'connection closed'));
          });
          return handle;
        };
      }
      const v = Reflect.get(target, prop, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  }) as unknown as Storage;
  return { storage, endWatches: () => enders.splice(0).forEach((end) => end()) };
}

async function until(what: string, f: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('ResourceMonitors', () => {
  let inner: MemoryStorage;
  let monitors: ResourceMonitors | undefined;

  beforeEach(() => {
    inner = new MemoryStorage({ autoCompaction: false });
  });
  afterEach(async () => {
    monitors?.stop();
    await inner.close();
  });

  it('relists after a watch ends and reports what the new listing lacks; follows stores registered and removed later', async () => {
    const { storage, endWatches } = endableStorage(inner);
    const registry = new Registry(storage, [
      { descriptor: configMapResource, validator: lazyValidator(() => validators.ConfigMap.createValidator()) },
      { descriptor: namespaceResource, validator: lazyValidator(() => validators.Namespace.createValidator()) },
    ]);
    await registry.init();
    const cms = registry.storeFor('', 'configmaps') as Store;
    const uid = async (name: string) => String(metaOf((await cms.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } })).object).uid);
    const a = await uid('a');
    const b = await uid('b');
    const listings: { resource: string; seen: string[] }[] = [];
    const observed: string[] = [];
    const removed: string[] = [];
    monitors = new ResourceMonitors(
      registry,
      {
        observe: (resource, obj) => observed.push(`${resource} ${String(metaOf(obj).name)}`),
        deleted: () => undefined,
        listed: (resource, seen) => listings.push({ resource, seen: [...seen].sort() }),
        removed: (resource) => removed.push(resource),
        log: () => undefined,
      },
      50,
    );
    await monitors.start();
    expect(listings.find((l) => l.resource === '/configmaps')?.seen).toEqual([a, b].sort());
    expect(observed).toContain('/configmaps a');

    endWatches();
    // b goes while nothing watches
    await inner.delete((cms as Store).key('default', 'b'));
    await until('a second listing of configmaps', () => listings.filter((l) => l.resource === '/configmaps').length === 2);
    expect(listings.filter((l) => l.resource === '/configmaps')[1].seen).toEqual([a]);

    const scStore = registry.newStore(storageClassResource, lazyValidator(() => validators.StorageClass.createValidator()));
    registry.register(scStore);
    await until('storage classes listed', () => listings.some((l) => l.resource === 'storage.cluster.io/storageclasses'));
    registry.unregister('storage.cluster.io', 'storageclasses');
    await until('storage classes removed', () => removed.includes('storage.cluster.io/storageclasses'));
  });
});
