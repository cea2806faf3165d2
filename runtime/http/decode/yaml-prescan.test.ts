import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { prescanYaml } from './yaml-prescan.ts';

/** The real nesting depth of a small decoded value (recursive: test inputs are shallow). */
function depth(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0;
  return 1 + Math.max(0, ...Object.values(v).map(depth));
}

// document, the bound it must not exceed (the bound is always >= the real depth)
const cases: [string, string, number][] = [
  ['a ConfigMap', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels: {a: b}\ndata:\n  k: v\n', 12],
  ['compact sequences', '- - - - x\n', 16],
  ['a sequence beside its key', 'a:\n- b:\n  - c:\n    - d\n', 16],
  ['flow inside block', 'a:\n  b: [[{c: [1]}]]\n', 12],
  ['brackets in a block scalar do not count', 'a: |\n  [[[[[[[[[[[[\n  {{{{{{{{{{{{\nb: x\n', 4],
  ['brackets and dashes in quoted and plain scalars do not count', `a: "[[[[[[ - - - -"\nb: 'x [[[[ {{{'\nc: if [ -f x ]\n`, 4],
  ['a long key counts its start column only', `${'k'.repeat(300)}: v\n`, 4],
];

describe('prescanYaml', () => {
  it.each(cases)('%s: bound >= real depth and <= %i', (_n, text, most) => {
    const { depthBound } = prescanYaml(text);
    expect(depthBound).toBeGreaterThanOrEqual(depth(parse(text)));
    expect(depthBound).toBeLessThanOrEqual(most);
  });

  it('counts aliases and tokens', () => {
    const scan = prescanYaml('a: &x 1\nb: *x\nc: [*x, *x]\n');
    expect(scan.aliases).toBe(3);
    expect(scan.tokens).toBeGreaterThan(10);
  });

  it('stays iterative on 100,000 levels', () => {
    expect(prescanYaml('['.repeat(100_000)).depthBound).toBeGreaterThanOrEqual(100_000);
  });
});
