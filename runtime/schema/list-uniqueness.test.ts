// Set and map lists of 100,000 items: the uniqueness checks are linear. The pairwise check they
// used for every length took 32 s on 100,000 distinct finalizers (now milliseconds, well inside
// vitest's 5 s timeout); it remains for lists of up to 32 items, where it allocates nothing.
import { describe, expect, it } from 'vitest';
import * as validators from '../../out/validators/index.ts';
import { H } from './codegen-runtime.ts';

const N = 100_000;
const names = Array.from({ length: N }, (_, i) => `f${i}.cluster.io/x`);
const withRepeatAtEnd = (list: string[]): string[] => [...list, list[0]];

describe('uniqueness helpers on long lists', () => {
  const table: { name: string; run: () => boolean; want: boolean }[] = [
    { name: `setHasDup: ${N} distinct strings`, run: () => H.setHasDup(names), want: false },
    { name: `setHasDup: ${N} strings, the first repeated last`, run: () => H.setHasDup(withRepeatAtEnd(names)), want: true },
    { name: `setHasDup: ${N} distinct numbers`, run: () => H.setHasDup(names.map((_, i) => i)), want: false },
    { name: `mapHasDup: ${N} items with distinct string keys`, run: () => H.mapHasDup(names.map((name) => ({ name })), ['name']), want: false },
    { name: `mapHasDup: ${N} items, the first key repeated last`, run: () => H.mapHasDup(withRepeatAtEnd(names).map((name) => ({ name })), ['name']), want: true },
    { name: `mapHasDup: ${N} items with two keys`, run: () => H.mapHasDup(names.map((name, i) => ({ name, port: i % 2 })), ['name', 'port']), want: false },
    { name: 'setHasDup: short list, pairwise', run: () => H.setHasDup(['a', 'b', 'a']), want: true },
    { name: 'mapHasDup: short list, pairwise', run: () => H.mapHasDup([{ name: 'a' }, { name: 'b' }], ['name']), want: false },
  ];
  for (const c of table) it(c.name, () => expect(c.run()).toBe(c.want));
});

describe('generated validators on long set and map lists', () => {
  const cm = (metadata: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big', namespace: 'ns', ...metadata } });
  const table: { name: string; obj: unknown; want: string[] }[] = [
    { name: `${N} distinct finalizers`, obj: cm({ finalizers: names }), want: [] },
    { name: `${N} finalizers with one repeat`, obj: cm({ finalizers: withRepeatAtEnd(names) }), want: [`metadata.finalizers[${N}]`] },
  ];
  const v = validators.ConfigMap.createValidator();
  for (const c of table) {
    it(c.name, () => {
      const dup = v.validate(c.obj).filter((e) => e.reason === 'FieldValueDuplicate');
      expect(dup.map((e) => e.field)).toEqual(c.want);
    });
  }
});
