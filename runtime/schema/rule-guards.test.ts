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
];

/** Values the guards meet: valid, invalid and of every JSON type. */
const values: unknown[] = [
  undefined, null, '', 'a', 0, 1, true, false, [], [''], ['a'], ['a', 'a'], ['*', 'a'], ['*'], [{ name: 'a' }, { name: 'a' }], [{ name: 'a' }, { name: 'b' }],
  {}, { a: 1 }, { finalizers: ['orphan', 'x'] }, { finalizers: ['example.com/f'] }, { finalizers: 'x' }, { finalizers: [] },
  { type: 'tls' }, { type: 'tls', data: { crt: 'AA==' } }, { type: 'tls', data: { crt: 'AA==', key: 'AA==' } }, { type: 'tls', data: 'x' },
  { type: 'basic' }, { type: 'basic', data: { user: 'AA==' } }, { type: 'basic', data: {} }, { type: 'ssh', data: { key: '' } }, { type: 'ssh', data: { key: 'AA==' } },
  { type: 1 }, { resources: {} }, { resources: { requests: {} } }, { resources: { requests: { storage: '1Gi' } } }, { resources: { requests: { cpu: '1' } } },
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
    expect(ruleGuard({ rule: 'requiredKeysWhen', field: 'type', equals: 'x', map: 'data', keys: ['k'], json: true }, 'x')).not.toMatch(/mapHasKeys/);
  });
});
