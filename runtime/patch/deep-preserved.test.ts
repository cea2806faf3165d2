// Preserved fields of a custom resource may nest as deep as the decoder allows (10,000 levels, as
// upstream). The untyped walks of runtime/patch (merge, compare, field sets, FieldsV1 of a create)
// use explicit stacks, so server-side apply and managed fields fit the server's V8 stack
// (runtime/stack-size.ts) with room to spare. The steps run in a worker thread given that stack.
// Also: the untyped walks' results, case by case.

import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { MAX_STACK_KB } from '../stack-size.ts';
import { FieldSet, pathToString } from './fieldpath.ts';
import { addedFieldsV1, compare, merge, toFieldSet } from './typed.ts';

/** The steps of deep-preserved.worker.ts at `depth`, in a worker with a `stackKb` V8 stack. */
function stepsInWorker(depth: number, stackKb: number): Promise<string[]> {
  // the worker loads TypeScript through tsx, as the server does
  // tsx's ESM entry (require.resolve gives the CommonJS one)
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const boot = `const { tsImport } = await import(${JSON.stringify(tsx)}); await tsImport(${JSON.stringify(new URL('./deep-preserved.worker.ts', import.meta.url).href)}, ${JSON.stringify(import.meta.url)});`;
  const w = new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`), { workerData: { depth }, resourceLimits: { stackSizeMb: stackKb / 1024 } });
  return new Promise((resolve, reject) => {
    w.once('message', (m: string[]) => {
      resolve(m);
      void w.terminate();
    });
    w.once('error', reject);
  });
}

describe('server-side apply and managed fields over preserved fields 10,000 deep', () => {
  it('every step fits the server stack', async () => {
    const results = await stepsInWorker(9_996, MAX_STACK_KB);
    expect(results.filter((r) => !r.endsWith(': ok'))).toEqual([]);
    expect(results).toHaveLength(6);
  }, 60_000);
});

const o = (spec: unknown): Record<string, unknown> => ({ spec });

describe('untyped merge', () => {
  const cases: { name: string; lhs: unknown; rhs: unknown; want: unknown }[] = [
    { name: 'maps merge key by key, LHS keys first', lhs: o({ b: 1, a: { x: 1 } }), rhs: o({ c: 3, a: { y: 2 } }), want: o({ b: 1, a: { x: 1, y: 2 }, c: 3 }) },
    { name: 'a scalar replaces a map', lhs: o({ a: { x: 1 } }), rhs: o({ a: 5 }), want: o({ a: 5 }) },
    { name: 'a map replaces a scalar', lhs: o({ a: 5 }), rhs: o({ a: { x: 1 } }), want: o({ a: { x: 1 } }) },
    { name: 'lists are atomic', lhs: o({ a: [1, 2] }), rhs: o({ a: [3] }), want: o({ a: [3] }) },
    { name: 'empty maps keep the RHS', lhs: o({ a: {} }), rhs: o({ a: {} }), want: o({ a: {} }) },
    { name: 'one side only', lhs: undefined, rhs: o({ a: { b: 1 } }), want: o({ a: { b: 1 } }) },
    { name: '__proto__ is an ordinary key', lhs: JSON.parse('{"spec":{"__proto__":{"x":1}}}'), rhs: JSON.parse('{"spec":{"__proto__":{"y":2}}}'), want: JSON.parse('{"spec":{"__proto__":{"x":1,"y":2}}}') },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = merge(c.lhs, c.rhs, undefined, {});
      expect(JSON.stringify(got)).toBe(JSON.stringify(c.want));
    });
  }
});

describe('untyped compare and field sets', () => {
  const cases: { name: string; lhs: unknown; rhs: unknown; added: string[]; modified: string[]; removed: string[] }[] = [
    { name: 'leaf changed, key added, key removed', lhs: o({ a: 1, b: { c: 1 } }), rhs: o({ a: 2, d: { e: 1 } }), added: ['.spec.d', '.spec.d.e'], modified: ['.spec.a'], removed: ['.spec.b', '.spec.b.c'] },
    { name: 'map against scalar is a leaf change', lhs: o({ a: { x: 1 } }), rhs: o({ a: 1 }), added: [], modified: ['.spec.a'], removed: [] },
    { name: 'empty map added', lhs: o({}), rhs: o({ a: {} }), added: ['.spec.a'], modified: [], removed: [] },
  ];
  const paths = (s: FieldSet): string[] => s.paths().map(pathToString).sort();
  for (const c of cases) {
    it(c.name, () => {
      const got = compare(c.lhs, c.rhs, undefined, {});
      expect({ added: paths(got.added), modified: paths(got.modified), removed: paths(got.removed) }).toEqual({ added: c.added, modified: c.modified, removed: c.removed });
    });
  }
  it('toFieldSet has every key, maps and leaves', () => {
    expect(paths(toFieldSet(o({ a: { b: 1, c: {} }, d: [1] }), undefined, {}))).toEqual(['.spec', '.spec.a', '.spec.a.b', '.spec.a.c', '.spec.d']);
  });
  it('FieldsV1 of a create: maps with keys carry ".", in key order', () => {
    const got = addedFieldsV1({ spec: { z: { y: 1 }, a: {}, m: [1] } }, undefined, {}, new FieldSet(), new FieldSet());
    expect(JSON.stringify(got)).toBe(JSON.stringify({ 'f:spec': { '.': {}, 'f:a': {}, 'f:m': {}, 'f:z': { '.': {}, 'f:y': {} } } }));
  });
});
