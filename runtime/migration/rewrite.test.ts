import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ResourceDescriptor } from '../api/resource-descriptor.ts';
import type { Obj } from '../api/object.ts';
import { Registry } from '../registry/registry.ts';
import type { Store } from '../registry/store.ts';
import type { CompiledValidator } from '../schema/types.ts';
import { MemoryStorage } from '../storage/memory.ts';
import { isStoredAt, rewriteObject, type RewriteOutcome } from './rewrite.ts';

const GROUP = 'rw.example.cluster.io';
const descriptor = (version: string): ResourceDescriptor => ({
  kind: 'Thing', listKind: 'ThingList', group: GROUP, version, plural: 'things', singular: 'thing', shortNames: [], categories: [],
  namespaced: true, subresources: [], deleteReturns: 'Status', maturity: 'stable', generation: false, updateRequiresResourceVersion: false,
  nameSyntax: 'dns1123Subdomain', fieldSelectors: [], printerColumns: [],
});
const accepting: CompiledValidator = { validate: () => [], validateUpdate: () => [], applyDefaults: () => undefined, prune: () => [] };

let storage: MemoryStorage;
let v2: Store;

beforeEach(() => {
  storage = new MemoryStorage({ autoCompaction: false });
  const registry = new Registry(storage, []);
  // The storage-version store of a custom resource whose storage version is now v2.
  v2 = registry.newStore(descriptor('v2'), accepting, {}, { storageApiVersion: `${GROUP}/v2` });
});
afterEach(async () => {
  await storage.close();
});

const raw = (apiVersion: string, name: string, extra: Obj = {}): string =>
  JSON.stringify({ apiVersion, kind: 'Thing', metadata: { name, namespace: 'ns', uid: `uid-${name}` }, spec: { n: 1 }, ...extra });

async function listed(name: string): Promise<Obj> {
  const items = (await v2.list('ns', {})).items;
  const item = items.find((o) => (o.metadata as { name: string }).name === name);
  if (!item) throw new Error(`${name} not listed`);
  return item;
}

describe('rewriteObject', () => {
  const cases: { name: string; stored: string; between?: (key: string) => Promise<void>; outcome: RewriteOutcome; after: string | undefined }[] = [
    { name: 'stored at v1: rewritten at v2, content kept', stored: raw(`${GROUP}/v1`, 'a'), outcome: 'rewritten', after: raw(`${GROUP}/v2`, 'a') },
    { name: 'stored at v2 already: nothing written', stored: raw(`${GROUP}/v2`, 'a'), outcome: 'current', after: raw(`${GROUP}/v2`, 'a') },
    {
      name: 'changed after the list: skipped, the newer write kept',
      stored: raw(`${GROUP}/v1`, 'a'),
      between: async (key) => {
        const kv = (await storage.get(key)).kv;
        await storage.update(key, raw(`${GROUP}/v2`, 'a', { spec: { n: 2 } }), kv?.modRevision ?? 0);
      },
      outcome: 'skipped',
      after: raw(`${GROUP}/v2`, 'a', { spec: { n: 2 } }),
    },
    {
      name: 'deleted after the list: skipped, not recreated',
      stored: raw(`${GROUP}/v1`, 'a'),
      between: async (key) => {
        await storage.delete(key);
      },
      outcome: 'skipped',
      after: undefined,
    },
  ];
  it.each(cases)('$name', async ({ stored, between, outcome, after }) => {
    const key = v2.key('ns', 'a');
    await storage.create(key, stored);
    const item = await listed('a');
    await between?.(key);
    const before = await storage.currentRevision();
    expect(await rewriteObject(v2, item)).toBe(outcome);
    const kv = (await storage.get(key)).kv;
    expect(kv?.value).toEqual(after);
    // Only a rewrite consumes a revision.
    expect(await storage.currentRevision()).toBe(outcome === 'rewritten' ? before + 1 : before);
  });
});

describe('isStoredAt', () => {
  it.each([
    [raw(`${GROUP}/v2`, 'a'), true],
    [raw(`${GROUP}/v1`, 'a'), false],
    [JSON.stringify({ apiVersion: `${GROUP}/v2`, kind: 'Other', metadata: { name: 'a' } }), false],
    [JSON.stringify({ kind: 'Thing', metadata: { name: 'a' } }), false],
    ['not json', false],
  ])('%s → %s', (value, want) => {
    expect(isStoredAt(value, { apiVersion: `${GROUP}/v2`, descriptor: descriptor('v2') })).toBe(want);
  });
});
