// The CEL cost budget is upstream's for CRD rules and absent for the built-in kinds' own rules
// (upstream checks those in Go, without one): a built-in object validates whatever its size, and the
// spec keeps its rules linear so that no budget is needed to bound them.
import { describe, expect, it } from 'vitest';
import { builtinCelRuleEngine, PER_CALL_COST_LIMIT, RUNTIME_COST_ERROR } from './index.ts';
import { crdRuleEngine } from '../crd/cel-engine.ts';
import * as validators from '../../out/validators/index.ts';

// A rule comparing every pair of 2,000 items costs about 4,000,000 units, four times upstream's per-call limit.
const pairwise = { rule: 'self.all(x, self.exists_one(y, y == x))', message: 'duplicate' };
const list = { type: 'array', items: { type: 'string' } } as const;
const items = Array.from({ length: 2_000 }, (_, i) => `v${i}`);

describe('per-call cost budget', () => {
  // [engine, result]
  const cases: [string, typeof crdRuleEngine, unknown][] = [
    ['CRD rules keep upstream\'s budget', crdRuleEngine, { ok: false, error: RUNTIME_COST_ERROR }],
    ['built-in rules have none', builtinCelRuleEngine, { ok: true }],
  ];
  it.each(cases)('%s', (_what, engine, want) => {
    expect(PER_CALL_COST_LIMIT).toBe(1_000_000);
    expect(engine.compileRule(pairwise, list, {}).evaluate(items, undefined)).toEqual(want);
  });
});

describe('built-in kinds at sizes the budget used to refuse, in linear time', () => {
  const drivers = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `driver-${i}.example.com`, nodeID: `node-${i}`, topologyKeys: ['topology.example.com/zone'] }));
  const csinode = (n: number, labels?: Record<string, string>) => ({
    apiVersion: 'storage.cluster.io/v1', kind: 'CSINode', metadata: { name: 'node-1', ...(labels ? { labels } : {}) }, spec: { drivers: drivers(n) },
  });
  const crd = (n: number, dup = false) => ({
    apiVersion: 'apiextensions.cluster.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'foos.example.com' },
    spec: {
      group: 'example.com', scope: 'Namespaced', names: { plural: 'foos', kind: 'Foo' },
      versions: Array.from({ length: n }, (_, i) => ({ name: dup && i === n - 1 ? 'v1' : `v${i + 1}`, served: true, storage: i === 0, schema: { openAPIV3Schema: { type: 'object' } } })),
    },
  });
  const reordered = (n: number) => {
    const o = csinode(n);
    o.spec.drivers.reverse();
    o.spec.drivers[10].nodeID = 'changed';
    return o;
  };
  // [what, run, error fields]
  const cases: [string, () => { field: string }[], string[]][] = [
    ['CSINode, 5,000 drivers, a label change', () => validators.CSINode.validateUpdate(csinode(5_000, { a: 'b' }), csinode(5_000)), []],
    ['CSINode, 5,000 drivers reordered, one nodeID changed', () => validators.CSINode.validateUpdate(reordered(5_000), csinode(5_000)), ['spec.drivers[10]']],
    ['CRD, 3,000 versions', () => validators.CustomResourceDefinition.validate(crd(3_000)), []],
    ['CRD, 3,000 versions, the last a duplicate', () => validators.CustomResourceDefinition.validate(crd(3_000, true)), ['spec.versions']],
  ];
  it.each(cases)('%s', (_what, run, want) => {
    run(); // compiles the validator
    const t = performance.now();
    expect(run().map((e) => e.field)).toEqual(want);
    expect(performance.now() - t).toBeLessThan(1_500);
  });
});
