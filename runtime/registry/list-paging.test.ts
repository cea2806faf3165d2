// LIST with a selector and limit, as upstream's storage answers it: at most `limit` items a page,
// read on until `limit` items match, the continue key after the last item returned.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configMapResource } from '../../out/routes/configmap.ts';
import { namespaceResource } from '../../out/routes/namespace.ts';
import * as validators from '../../out/validators/index.ts';
import { lazyValidator } from '../http/bootstrap.ts';
import { MemoryStorage } from '../storage/memory.ts';
import { decodeContinue } from './continue-token.ts';
import { metaOf } from '../api/object.ts';
import { Registry } from './registry.ts';
import type { ListParams, Store } from './store.ts';

/** 16 ConfigMaps cm-00 … cm-15: every fourth (03, 07, 11, 15) is labelled tier=other, the 12 others tier=web. */
const NAMES = Array.from({ length: 16 }, (_, i) => `cm-${String(i).padStart(2, '0')}`);
const tierOf = (i: number): string => (i % 4 === 3 ? 'other' : 'web');
const WEB = NAMES.filter((_, i) => tierOf(i) === 'web');

interface Case {
  name: string;
  params: ListParams;
  /** The names each page answers, in order. */
  pages: string[][];
  /** remainingItemCount of the first page (only lists without a selector have one). */
  firstRemaining?: number;
}

const cases: Case[] = [
  { name: 'label selector, limit 5 (the reported case)', params: { labelSelector: 'tier=web', limit: 5 }, pages: [WEB.slice(0, 5), WEB.slice(5, 10), WEB.slice(10)] },
  // the last match (cm-14) is followed by a non-match: a continue follows, and the last page is empty
  { name: 'label selector, limit 1', params: { labelSelector: 'tier=web', limit: 1 }, pages: [...WEB.map((n) => [n]), []] },
  { name: 'label selector, limit 6 ends on a match before a non-match', params: { labelSelector: 'tier=web', limit: 6 }, pages: [WEB.slice(0, 6), WEB.slice(6, 12), []] },
  { name: 'label selector, limit above the matches', params: { labelSelector: 'tier=web', limit: 50 }, pages: [WEB] },
  { name: 'inverse selector, limit 3', params: { labelSelector: 'tier!=web', limit: 3 }, pages: [['cm-03', 'cm-07', 'cm-11'], ['cm-15']] },
  { name: 'field selector, limit 2', params: { fieldSelector: 'metadata.name!=cm-01', limit: 2 }, pages: chunk(NAMES.filter((n) => n !== 'cm-01'), 2) },
  // upstream's store reads the single key a metadata.name selector names (MatchesSingle): no continue
  { name: 'field selector pinning the name, limit 1', params: { fieldSelector: 'metadata.name=cm-01', limit: 1 }, pages: [['cm-01']] },
  { name: 'field selector pinning the name and more, limit 1', params: { fieldSelector: 'metadata.name=cm-01,metadata.namespace=default', limit: 1 }, pages: [['cm-01']] },
  { name: 'field selector pinning a missing name, limit 1', params: { fieldSelector: 'metadata.name=nope', limit: 1 }, pages: [[]] },
  { name: 'no selector, limit 5', params: { limit: 5 }, pages: chunk(NAMES, 5), firstRemaining: 11 },
  { name: 'no selector, no limit', params: {}, pages: [NAMES] },
];

function chunk<T>(xs: T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

describe('LIST with selectors and limit', () => {
  let storage: MemoryStorage;
  let cms: Store;

  beforeAll(async () => {
    storage = new MemoryStorage({ autoCompaction: false });
    const registry = new Registry(
      storage,
      [
        { descriptor: configMapResource, validator: lazyValidator(() => validators.ConfigMap.createValidator()) },
        { descriptor: namespaceResource, validator: lazyValidator(() => validators.Namespace.createValidator()) },
      ],
      { featureGates: {} },
    );
    await registry.init();
    cms = registry.storeFor('', 'configmaps') as Store;
    for (const [i, name] of NAMES.entries()) await cms.create('default', { metadata: { name, labels: { tier: tierOf(i) } } });
  });
  afterAll(async () => {
    await storage.close();
  });

  it.each(cases)('$name', async ({ params, pages, firstRemaining }) => {
    const got: string[][] = [];
    let cont: string | undefined;
    let first = true;
    for (let i = 0; i < 40; i++) {
      const page = await cms.list('default', { ...params, continue: cont });
      const names = page.items.map((o) => metaOf(o).name as string);
      expect(names.length).toBeLessThanOrEqual(params.limit ?? Infinity);
      if (first && firstRemaining !== undefined) expect(page.metadata.remainingItemCount).toBe(firstRemaining);
      if (first && params.labelSelector) expect(page.metadata.remainingItemCount).toBeUndefined();
      first = false;
      got.push(names);
      cont = page.metadata.continue;
      if (!cont) break;
      // the token resumes right after the last item this page returned
      if (names.length) expect(decodeContinue(cont).start).toBe(`${names[names.length - 1]}\u0000`);
    }
    expect(got).toEqual(pages);
  });
});
