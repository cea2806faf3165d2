// etcd's progress notifications reach the client as bookmarks: a quiet watch's BOOKMARK moves past
// writes to other resources (without them it would repeat the revision the watch started at).

import { afterAll, beforeAll, expect, it } from 'vitest';
import { configMapResource } from '../../out/routes/configmap.ts';
import { namespaceResource } from '../../out/routes/namespace.ts';
import * as validators from '../../out/validators/index.ts';
import { lazyValidator } from '../http/bootstrap.ts';
import { Registry } from '../registry/registry.ts';
import type { Store } from '../registry/store.ts';
import { EtcdStorage } from './etcd.ts';
import { etcdSkipReason, startEtcdMember, type EtcdMember } from './etcd-test-member.ts';

const skip = etcdSkipReason();
if (skip) console.warn(`etcd bookmarks: ${skip}`);

let member: EtcdMember;
let storage: EtcdStorage;
let registry: Registry;

beforeAll(async () => {
  if (skip) return;
  member = await startEtcdMember({ progressNotifyIntervalMs: 100 });
  storage = new EtcdStorage({ endpoints: [member.endpoint], compactionIntervalSeconds: 0 });
  registry = new Registry(
    storage,
    [
      { descriptor: configMapResource, validator: lazyValidator(() => validators.ConfigMap.createValidator()) },
      { descriptor: namespaceResource, validator: lazyValidator(() => validators.Namespace.createValidator()) },
    ],
    { featureGates: {}, bookmarkIntervalMs: 150 },
  );
  await registry.init();
});

afterAll(async () => {
  await storage?.close();
  await member?.stop();
});

it.skipIf(skip !== undefined)('a quiet watch gets bookmarks at the revision of other resources\' writes', async () => {
  const cms = registry.storeFor('', 'configmaps') as Store;
  const nss = registry.storeFor('', 'namespaces') as Store;
  const start = await storage.currentRevision();
  const bookmarks: number[] = [];
  const stream = await cms.watch(
    'default',
    { resourceVersion: String(start), allowWatchBookmarks: true },
    {
      send: (type, o) => {
        if (type === 'BOOKMARK') bookmarks.push(Number((o.metadata as { resourceVersion: string }).resourceVersion));
      },
      error: () => undefined,
      end: () => undefined,
    },
  );
  try {
    await nss.create(undefined, { metadata: { name: 'elsewhere-1' } });
    const created = await nss.create(undefined, { metadata: { name: 'elsewhere-2' } });
    const rev = Number((created.object.metadata as { resourceVersion: string }).resourceVersion);
    expect(rev).toBeGreaterThan(start);
    const deadline = Date.now() + 5000;
    while (!bookmarks.some((b) => b >= rev) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(bookmarks.some((b) => b >= rev)).toBe(true);
    // never backwards
    expect(bookmarks).toEqual([...bookmarks].sort((a, b) => a - b));
  } finally {
    stream.stop();
  }
});
