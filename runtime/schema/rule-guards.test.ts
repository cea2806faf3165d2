// The guards the generated validators put before a declarative rule's closure (codegen.ts
// ruleGuard): wherever a guard holds, the rule reports nothing (so skipping its closure changes no
// answer), and each guard does hold for the common valid values it is there for.
import { describe, expect, it } from 'vitest';
import { ruleGuard } from './codegen.ts';
import { H } from './codegen-runtime.ts';
import { ValidationContext } from './context.ts';
import { getRule } from './rules/index.ts';
import type { RuleSpec, Schema } from './types.ts';

const byteMap: Schema = { type: 'object', additionalProperties: { type: 'string', format: 'byte' } };
const node: Schema = {
  type: 'object',
  properties: {
    type: { type: 'string' },
    data: byteMap,
    resources: { type: 'object', properties: { requests: { type: 'object', additionalProperties: { type: 'string' } } } },
    finalizers: { type: 'array', items: { type: 'string' } },
  },
};

const named: Schema = { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } };
const strings: Schema = { type: 'array', items: { type: 'string' } };
const ref: Schema = { type: 'object', properties: { name: { type: 'string' }, kind: { type: 'string' } } };
const pair: Schema = { type: 'object', properties: { a: ref, b: ref, c: { type: 'string' } } };
const stringMap: Schema = { type: 'object', additionalProperties: { type: 'string' } };
const quantity: Schema = { type: 'string' };
const twoMaps: Schema = { type: 'object', properties: { data: stringMap, more: stringMap } };

/** [rule, values the guard must hold for (each one a valid value of the rule), the rule's schema when not `node`] */
const cases: [RuleSpec, unknown[], Schema?][] = [
  [{ rule: 'nonEmpty' }, ['a', [1], 0, false, { a: 1 }]],
  [{ rule: 'uniqueBy', key: 'name' }, [[], [{ name: 'a' }], 'x'], named],
  [{ rule: 'distinct', message: 'must be distinct' }, [[], ['a']], strings],
  [{ rule: 'exclusiveItem', value: '*' }, [['*'], []], strings],
  [{ rule: 'standardFinalizers', names: ['orphan'] }, [{}, { finalizers: [] }, { name: 'x' }, 'x']],
  [{ rule: 'requiredKeysWhen', field: 'type', equals: 'tls', map: 'data', keys: ['crt', 'key'], mode: 'all' },
    [{ type: 'Opaque' }, { type: 'tls', data: { crt: 'AA==', key: 'AA==' } }, {}]],
  [{ rule: 'requiredKeysWhen', field: 'type', equals: 'basic', map: 'data', keys: ['user', 'password'], mode: 'any' },
    [{ type: 'basic', data: { user: 'AA==' } }, { type: 'other' }]],
  [{ rule: 'requiredKeysWhen', field: 'type', equals: 'ssh', map: 'data', keys: ['key'], mode: 'all', nonEmpty: true }, [{ type: 'Opaque' }]],
  [{ rule: 'requiredKeysWhen', map: 'resources.requests', keys: ['storage'], mode: 'all' }, [{ resources: { requests: { storage: '1Gi' } } }]],
  [{ rule: 'requiredKeysWhen', field: 'type', equals: 'ssh', map: 'data', keys: ['key'], mode: 'all', nonEmpty: true },
    [{ type: 'ssh', data: { key: 'AAAA' } }, { type: 'ssh', data: { key: 'a-_b' } }]],
  [{ rule: 'requiredKeysWhen', field: 'type', equals: 'basic', map: 'data', keys: ['user', 'password'], mode: 'any', nonEmpty: true },
    [{ type: 'basic', data: { user: 'AAAA' } }]],
  [{ rule: 'uniqueBy', key: 'name' }, [[{ name: 'a' }, { name: 'b' }], [{ name: 'a' }, {}, { name: 'b' }]], named],
  [{ rule: 'distinct', message: 'must be distinct' }, [['a', 'b']], strings],
  [{ rule: 'distinct', key: 'name', message: 'must be distinct', duplicateAt: 'item' }, [[{ name: 'a' }, { name: 'b' }]], named],
  [{ rule: 'equalWhenBothSet', fields: ['a', 'b'], compare: ['name'] }, [{ a: { name: 'x' } }, { b: { name: 'x' } }, {}], pair],
  [{ rule: 'exactlyOneOf', fields: ['a', 'c'] }, [{ a: { name: 'x' } }, { c: 'x' }, { a: {}, c: '' }], pair],
  [{ rule: 'atMostOneOf', fields: ['a', 'c'] }, [{}, { c: 'x' }, { a: { name: 'x' } }], pair],
  [{ rule: 'quantityRange', basic: true }, ['1Gi', '0', '500m', '10', 3, 0, '2Ei'], quantity],
  [{ rule: 'quantityRange', exclusiveMinimum: '0' }, ['1Gi', '1', '100M', 7], quantity],
  [{ rule: 'quantityRange', minimum: '0', basic: true }, ['0', '1Ki'], quantity],
  [{ rule: 'labelMap' }, [{}, { app: 'web', 'example.com/tier': '' }], stringMap],
  [{ rule: 'itemsAtParent', syntax: 'dns1123Label', nonEmpty: true, distinct: true }, [['a', 'b-c'], []], strings],
  [{ rule: 'itemsAtParent', nonEmpty: true }, [['a'], ['a', 'a']], strings],
  [{ rule: 'disjointKeys', maps: ['data', 'more'] }, [{ data: { a: 'x' } }, { more: { a: 'x' } }, {}], twoMaps],
  [{ rule: 'maxTotalBytes', limit: 4, fields: ['data'] }, [{ data: { a: 'A' } }, {}, { data: {} }]],
  [{ rule: 'maxTotalBytes', limit: 6, countKeys: true }, [{ a: 'b' }, {}], stringMap],
  [{ rule: 'resourceWildcards' }, [['pods', 'pods/status'], []], strings],
];

/** Values the guards meet: valid, invalid and of every JSON type. */
const values: unknown[] = [
  undefined, null, '', 'a', 0, 1, true, false, [], [''], ['a'], ['a', 'a'], ['*', 'a'], ['*'], [{ name: 'a' }, { name: 'a' }], [{ name: 'a' }, { name: 'b' }],
  {}, { a: 1 }, { finalizers: ['orphan', 'x'] }, { finalizers: ['example.com/f'] }, { finalizers: 'x' }, { finalizers: [] },
  { type: 'tls' }, { type: 'tls', data: { crt: 'AA==' } }, { type: 'tls', data: { crt: 'AA==', key: 'AA==' } }, { type: 'tls', data: 'x' },
  { type: 'basic' }, { type: 'basic', data: { user: 'AA==' } }, { type: 'basic', data: {} }, { type: 'ssh', data: { key: '' } }, { type: 'ssh', data: { key: 'AA==' } },
  { type: 1 }, { resources: {} }, { resources: { requests: {} } }, { resources: { requests: { storage: '1Gi' } } }, { resources: { requests: { cpu: '1' } } },
  { type: 'ssh', data: { key: 'A' } }, { type: 'ssh', data: { key: '==' } }, { type: 'ssh', data: { key: 1 } }, { type: 'basic', data: { user: '' } },
  { a: { name: 'x' }, b: { name: 'y' } }, { a: { name: 'x' }, b: { name: 'x' } }, { a: { name: 'x' }, c: 'y' }, { a: {}, c: 'y' }, { a: null, c: null },
  [{ name: 1 }, { name: 1 }], [{ name: 'a' }, 'a'], ['a', ''], ['A', 'b'], ['a', 1, 1],
  '-1', '1.5Gi', '1e3', '0m', '00', '1Gix', 'Gi', '+1', -1, 1.5, Number.MAX_SAFE_INTEGER + 2, '0.0',
  { app: 'Web App' }, { '-x': 'a' }, { 'a/b/c': 'x' },
  ['*/*', 'pods'], ['*', 'pods'], ['pods/*', 'pods/status'], ['*/status', 'pods/status'],
  { data: { a: 'x' }, more: { b: 'y' } }, { data: { a: 'x' }, more: { a: 'y' } }, { data: { a: 'AAAAAAAA' } }, { ab: 'cd' },
];

function reports(spec: RuleSpec, at: Schema, v: unknown): number {
  const env = { featureGates: {}, resolve: (s: Schema) => s };
  const kind = getRule(spec.rule)!;
  expect(kind.checkParams(spec, at, env), spec.rule).toBeNull();
  const ctx = new ValidationContext(false, {});
  kind.compile(spec, at, env)!.check(v, undefined, ctx);
  return ctx.errors.length;
}

describe('rule guards of the generated validators', () => {
  it.each(cases)('%j', (spec, holdsFor, at = node) => {
    const code = ruleGuard(spec, 'x');
    expect(code).not.toBeNull();
    const guard = new Function('H', 'x', `return ${code!};`) as (h: typeof H, x: unknown) => boolean;
    for (const v of [...values, ...holdsFor]) if (guard(H, v)) expect(reports(spec, at, v), JSON.stringify(v)).toBe(0);
    for (const v of holdsFor) expect(guard(H, v), JSON.stringify(v)).toBe(true);
    expect(values.some((v) => !guard(H, v))).toBe(true);
  });

  it('has no guard for a rule kind it does not know', () => {
    expect(ruleGuard({ rule: 'quantityRange', minimum: '1' }, 'x')).toBeNull();
    expect(ruleGuard({ rule: 'quantityRange', basic: true, maximum: '10' }, 'x')).toBeNull();
    expect(ruleGuard({ rule: 'itemsAtParent', syntax: 7 }, 'x')).toBeNull();
    expect(ruleGuard({ rule: 'requiredKeysWhen', field: 'type', equals: 'x', map: 'data', keys: ['k'], json: true }, 'x')).not.toMatch(/mapHasKeys/);
  });
});
