import { describe, expect, it } from 'vitest';
import { LatestRowCache, type LatestRow } from './latest-row-cache.ts';

const row = (id: number): LatestRow => ({ id, deleted: 0, create_revision: id, value: `v${id}` });

describe('LatestRowCache', () => {
  it.each([
    // [capacity, operations in order ('k' sets key k, 'get:k' reads it), keys expected to remain]
    [2, ['a', 'b', 'c'], ['b', 'c']],
    [2, ['a', 'b', 'get:a', 'c'], ['a', 'c']],
    [0, ['a'], []],
    [3, ['a', 'a', 'b'], ['a', 'b']],
  ] as const)('capacity %i after %j keeps %j', (capacity, ops, remaining) => {
    const c = new LatestRowCache(capacity);
    let n = 0;
    for (const op of ops) {
      if (op.startsWith('get:')) c.get(op.slice(4));
      else c.set(op, row(++n));
    }
    expect(c.size).toBe(remaining.length);
    for (const k of remaining) expect(c.get(k)).toBeDefined();
  });

  it('returns the row last set for a key', () => {
    const c = new LatestRowCache(4);
    c.set('k', row(1));
    c.set('k', { id: 2, deleted: 1, create_revision: 1, value: null });
    expect(c.get('k')).toEqual({ id: 2, deleted: 1, create_revision: 1, value: null });
  });
});
