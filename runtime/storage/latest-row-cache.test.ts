import { describe, expect, it } from 'vitest';
import { LatestRowCache, type LatestRow } from './latest-row-cache.ts';

const row = (id: number): LatestRow => ({ id, deleted: 0, create_revision: id, value: `v${id}` });

describe('LatestRowCache', () => {
  it.each([
    // [capacity, keys set in order, keys still held, keys dropped]
    [4, ['a', 'b', 'c', 'd', 'e'], ['c', 'd', 'e'], ['a', 'b']],
    [4, ['a', 'b', 'a', 'c'], ['a', 'c'], ['b']],
    [0, ['a'], [], ['a']],
    [1, ['a'], [], ['a']],
  ] as const)('capacity %i after setting %j holds %j and dropped %j', (capacity, keys, held, dropped) => {
    const c = new LatestRowCache(capacity);
    keys.forEach((k, i) => c.set(k, row(i + 1)));
    for (const k of held) expect(c.get(k)).toBeDefined();
    for (const k of dropped) expect(c.get(k)).toBeUndefined();
  });

  it('returns the row last set for a key, across a generation change', () => {
    const c = new LatestRowCache(4);
    c.set('k', row(1));
    c.set('x', row(2)); // the generation with k(1) becomes the previous one
    c.set('k', { id: 3, deleted: 1, create_revision: 1, value: null });
    expect(c.get('k')).toEqual({ id: 3, deleted: 1, create_revision: 1, value: null });
  });

  it('keeps the newest row of a key written over and over once full', () => {
    const c = new LatestRowCache(10_000);
    for (let i = 0; i < 70_000; i++) c.set(`/k/${i}`, row(i));
    for (let i = 0; i < 20_000; i++) c.set('/hot', row(i));
    expect(c.get('/hot')?.id).toBe(19_999);
    expect(c.get('/k/69999')).toBeDefined();
    expect(c.get('/k/0')).toBeUndefined();
  });
});
