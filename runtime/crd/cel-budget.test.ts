// Upstream's runtime CEL cost budget (RuntimeCELCostBudget, 10,000,000) spans every rule evaluated
// while validating one custom resource: rules cheap enough per item to pass the static estimate run
// out of it on a long list, and upstream then reports one Invalid error at the node whose rule ran
// out (the schema type as the value) and runs no further rule. The built-in kinds have no budget.
import { describe, expect, it } from 'vitest';
import { RUNTIME_CEL_COST_BUDGET } from '../cel/index.ts';
import { compileSchemaToClosures } from '../schema/compile.ts';
import type { FieldError, Schema } from '../schema/types.ts';
import { compileSchemaRules } from './cel-rules.ts';
import { crdRuleEngine } from './cel-engine.ts';
import { buildCustomResourceVersion } from './custom-resource.ts';
import type { CustomResourceDefinition } from './types.ts';
import * as validators from '../../out/validators/index.ts';

const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

// A regex's cost is its input's length times a quarter of the pattern's length: a long alternative
// that never matches makes each evaluation cost about 39,000 units while the match stays fast.
const pad = (c: string) => c.repeat(1500);
const itemRules = [
  { rule: `self.matches('^[a-z]+$|^${pad('x')}$')`, message: 'must be lower-case letters' },
  { rule: `!self.matches('^[0-9]+$|^${pad('y')}$')`, message: 'must not be only digits' },
];
const MAX_ITEMS = 200;
const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        names: { type: 'array', maxItems: MAX_ITEMS, items: { type: 'string', maxLength: 1024, 'x-cluster-validations': itemRules } },
        label: { type: 'string', maxLength: 64, 'x-cluster-validations': [{ rule: "self != 'forbidden'", message: 'label is forbidden' }] },
      },
    },
  },
};
const crd: CustomResourceDefinition = {
  apiVersion: 'apiextensions.cluster.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'blobs.budget.cluster.io' },
  spec: {
    group: 'budget.cluster.io', scope: 'Namespaced', names: { plural: 'blobs', singular: 'blob', kind: 'Blob', listKind: 'BlobList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
  },
} as unknown as CustomResourceDefinition;

const word = 'a'.repeat(1024);
const blob = (names: number, label = 'ok', spec: Record<string, unknown> = {}) => ({
  apiVersion: 'budget.cluster.io/v1', kind: 'Blob', metadata: { name: 'b', namespace: 'default' },
  // label after names: rules run in the object's key order (upstream's Go map order is random)
  spec: { names: Array.from({ length: names }, () => word), label, ...spec },
});

// What one evaluation of each item rule costs on `word`, as the engine counts it.
const itemCost = itemRules.reduce((sum, r) => {
  const spent = { cost: 0 };
  expect(crdRuleEngine.compileRule(r, schema.properties.spec.properties.names.items as Schema, {}).evaluate(word, undefined, spent)).toEqual({ ok: true });
  return sum + spent.cost;
}, 0);
// The item whose rules exhaust the budget: the first whose running total passes it.
const exhaustedAt = Math.floor(RUNTIME_CEL_COST_BUDGET / itemCost);

describe('the rules pass the static estimate', () => {
  it('each rule times maxItems is within the per-rule limit, the sum within the per-CRD one', () => {
    const r = compileSchemaRules(schema, 'spec.versions[0].schema.openAPIV3Schema');
    expect(r.errors).toEqual([]);
    for (const c of r.rules) expect(c.cost).toBeLessThanOrEqual(10_000_000);
    // while the rules over a full list cost more than the runtime budget
    expect(itemCost * MAX_ITEMS).toBeGreaterThan(RUNTIME_CEL_COST_BUDGET);
    expect(exhaustedAt).toBe(128);
  });
});

describe('one budget for every rule of one custom resource', () => {
  const v = buildCustomResourceVersion(crd, 'v1');
  const budgetError = (field: string): FieldError => ({ field, reason: 'FieldValueInvalid', message: `Invalid value: "string": ${OUT_OF_BUDGET}` });
  // [what, validate, errors]
  const cases: [string, () => FieldError[], FieldError[]][] = [
    ['10 items', () => v.validate(blob(10)), []],
    [`${exhaustedAt} items (just within)`, () => v.validate(blob(exhaustedAt)), []],
    [`${exhaustedAt + 1} items: out at the last item`, () => v.validate(blob(exhaustedAt + 1)), [budgetError(`spec.names[${exhaustedAt}]`)]],
    [`${MAX_ITEMS} items: out at item ${exhaustedAt}, no later rule runs`, () => v.validate(blob(MAX_ITEMS, 'forbidden')).filter((e) => e.message.includes('cost budget') || e.field === 'spec.label'), [budgetError(`spec.names[${exhaustedAt}]`)]],
    ['an update is charged alike', () => v.validateUpdate(blob(MAX_ITEMS), blob(1)), [budgetError(`spec.names[${exhaustedAt}]`)]],
    ['a failing rule still reports before the budget runs out', () => v.validate(blob(2, 'ok', { names: [word, '123'] })), [
      { field: 'spec.names[1]', reason: 'FieldValueInvalid', message: 'Invalid value: "string": must be lower-case letters' },
      { field: 'spec.names[1]', reason: 'FieldValueInvalid', message: 'Invalid value: "string": must not be only digits' },
    ]],
    ['each validation starts with a full budget', () => (v.validate(blob(MAX_ITEMS)), v.validate(blob(exhaustedAt))), []],
  ];
  it.each(cases)('%s', (_what, run, want) => {
    expect(run()).toEqual(want);
  });
});

describe('no budget without one (the built-in kinds)', () => {
  // [what, errors of a list the CRD budget would refuse]
  const cases: [string, () => FieldError[]][] = [
    ['the same schema compiled without celCostBudget', () => compileSchemaToClosures(schema as Schema, { cel: crdRuleEngine }).validate({ spec: blob(MAX_ITEMS).spec })],
    ['a generated built-in validator (CSINode, 5,000 drivers)', () => validators.CSINode.validate({
      apiVersion: 'storage.cluster.io/v1', kind: 'CSINode', metadata: { name: 'node-1' },
      spec: { drivers: Array.from({ length: 5_000 }, (_, i) => ({ name: `driver-${i}.example.com`, nodeID: `node-${i}`, topologyKeys: ['topology.example.com/zone'] })) },
    })],
  ];
  it.each(cases)('%s', (_what, run) => {
    expect(run()).toEqual([]);
  });
});

describe('a rule past the per-call limit stops every further rule, as upstream words it', () => {
  const pairwise = { rule: 'self.all(x, self.exists_one(y, y == x))', message: 'tags must be unique' };
  const tagsSchema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          tags: { type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 8 }, 'x-cluster-validations': [pairwise] },
          label: { type: 'string', maxLength: 64, 'x-cluster-validations': [{ rule: "self != 'forbidden'", message: 'label is forbidden' }] },
        },
      },
    },
  };
  const tagsCrd = { ...crd, spec: { ...crd.spec, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: tagsSchema } }] } } as CustomResourceDefinition;
  const v = buildCustomResourceVersion(tagsCrd, 'v1');
  const tagged = (n: number) => ({ apiVersion: 'budget.cluster.io/v1', kind: 'Blob', metadata: { name: 'b', namespace: 'default' }, spec: { tags: Array.from({ length: n }, (_, i) => `t${i}`), label: 'forbidden' } });
  it('the rule passes the static estimate', () => {
    expect(compileSchemaRules(tagsSchema, 'x').errors).toEqual([]);
  });
  // [what, object, errors]
  const cases: [string, unknown, FieldError[]][] = [
    ['100 tags: within the per-call limit, the label rule runs', tagged(100), [
      { field: 'spec.label', reason: 'FieldValueInvalid', message: 'Invalid value: "string": label is forbidden' },
    ]],
    ['1,000 tags: past it, and the label rule does not run', tagged(1000), [
      { field: 'spec.tags', reason: 'FieldValueInvalid', message: `Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: tags must be unique` },
    ]],
  ];
  it.each(cases)('%s', (_what, obj, want) => {
    expect(v.validate(obj)).toEqual(want);
  });
});

describe('a messageExpression is charged too', () => {
  // The label's message costs more than one item of names: after `exhaustedAt` items what remains
  // pays the label's rule but not its message.
  const labelRule = { rule: "!self.startsWith('forbidden')", messageExpression: `self.matches('^[a-z]+$|^${'z'.repeat(3200)}$') ? 'forbidden label' : 'forbidden'` };
  const msgSchema = structuredClone(schema);
  (msgSchema.properties.spec.properties.label as Record<string, unknown>) = { type: 'string', maxLength: 1024, 'x-cluster-validations': [labelRule] };
  const msgCrd = { ...crd, spec: { ...crd.spec, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: msgSchema } }] } } as CustomResourceDefinition;
  const v = buildCustomResourceVersion(msgCrd, 'v1');
  const label = `forbidden${'a'.repeat(1000)}`;
  it('the rules pass the static estimate', () => {
    expect(compileSchemaRules(msgSchema, 'x').errors).toEqual([]);
  });
  // [what, names, errors]
  const cases: [string, number, FieldError[]][] = [
    ['10 items: the message is evaluated', 10, [{ field: 'spec.label', reason: 'FieldValueInvalid', message: 'Invalid value: "string": forbidden label' }]],
    [`${exhaustedAt} items: the budget pays the rule, not its message`, exhaustedAt, [
      { field: 'spec.label', reason: 'FieldValueInvalid', message: 'Invalid value: "string": messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run' },
    ]],
  ];
  it.each(cases)('%s', (_what, names, want) => {
    expect(v.validate(blob(names, label))).toEqual(want);
  });
});
