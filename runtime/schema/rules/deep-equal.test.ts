// The rules' deep equality on hostile values: nesting beyond the stack, and cycles, which it compares
// as Go's reflect.DeepEqual does (a pair of objects met again counts as equal), never throwing.
import { describe, expect, it } from 'vitest';
import { deepEqual } from './util.ts';

const nest = (depth: number, leaf: unknown): unknown => {
  let o = leaf;
  for (let i = 0; i < depth; i++) o = { a: o };
  return o;
};
const nestList = (depth: number, leaf: unknown): unknown => {
  let o = leaf;
  for (let i = 0; i < depth; i++) o = [o];
  return o;
};
/** A StorageClass-like object whose parameters point back at it; `tag` tells two copies apart. */
const cyclic = (tag: string): Record<string, unknown> => {
  const o: Record<string, unknown> = { kind: 'StorageClass', parameters: { type: tag } };
  (o.parameters as Record<string, unknown>).self = o;
  return o;
};
const ring = (n: number, tag: string): Record<string, unknown> => {
  const first: Record<string, unknown> = { tag };
  let cur = first;
  for (let i = 1; i < n; i++) cur = (cur.next = { tag }) as Record<string, unknown>;
  cur.next = first;
  return first;
};

describe('deepEqual', () => {
  const cases: { name: string; a: () => unknown; b: () => unknown; want: boolean }[] = [
    { name: 'absent and null are equal', a: () => ({ x: null }), b: () => ({ x: undefined }), want: true },
    { name: 'key order does not matter', a: () => ({ x: 1, y: [1, 2] }), b: () => ({ y: [1, 2], x: 1 }), want: true },
    { name: 'an array is not an object', a: () => ({}), b: () => [], want: false },
    { name: '100,000 levels, equal', a: () => nest(100_000, 'x'), b: () => nest(100_000, 'x'), want: true },
    { name: '100,000 levels, the leaves differ', a: () => nest(100_000, 'x'), b: () => nest(100_000, 'y'), want: false },
    { name: '100,000 levels against 99,999', a: () => nest(100_000, 'x'), b: () => nest(99_999, 'x'), want: false },
    { name: '100,000 levels of lists, equal', a: () => nestList(100_000, 1), b: () => nestList(100_000, 1), want: true },
    { name: 'two cyclic objects of the same shape', a: () => cyclic('gp3'), b: () => cyclic('gp3'), want: true },
    { name: 'two cyclic objects that differ inside the cycle', a: () => cyclic('gp3'), b: () => cyclic('gp2'), want: false },
    { name: 'a cyclic object and itself', a: () => { const o = cyclic('gp3'); return [o, o]; }, b: () => { const o = cyclic('gp3'); return [o, o]; }, want: true },
    { name: 'rings of 3 and 3', a: () => ring(3, 't'), b: () => ring(3, 't'), want: true },
    { name: 'a cyclic object and a finite unrolling of it', a: () => cyclic('gp3'), b: () => ({ kind: 'StorageClass', parameters: { type: 'gp3', self: { kind: 'StorageClass', parameters: { type: 'gp3' } } } }), want: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(deepEqual(c.a(), c.b())).toBe(c.want);
      expect(deepEqual(c.b(), c.a())).toBe(c.want);
    });
  }
});
