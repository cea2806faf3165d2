import { describe, expect, it } from 'vitest';
import { compileSchemaToClosures } from '../compile.ts';
import type { FieldError, Schema } from '../types.ts';
import { loadFixture } from '../testutil.ts';
import { RULES } from './index.ts';

interface RuleFixture {
  schema: Schema;
  featureGates?: Record<string, boolean>;
  cases: { name: string; object: unknown; old?: unknown; want: FieldError[] }[];
}
const fixtures = loadFixture<Record<string, RuleFixture>>('rules.yaml');

describe('every rule kind has a valid and an invalid example', () => {
  for (const kind of RULES.keys()) {
    it(kind, () => {
      const f = fixtures[kind];
      expect(f, `test/fixtures/schema/rules.yaml has no ${kind}`).toBeDefined();
      expect(f.cases.some((c) => c.want.length === 0)).toBe(true);
      if (kind !== 'note') expect(f.cases.some((c) => c.want.length > 0)).toBe(true);
    });
  }
});

for (const [kind, f] of Object.entries(fixtures)) {
  describe(kind, () => {
    const v = compileSchemaToClosures(f.schema, { featureGates: f.featureGates });
    for (const c of f.cases) {
      it(c.name, () => {
        const got = c.old === undefined ? v.validate(c.object) : v.validateUpdate(c.object, c.old);
        expect(got).toEqual(c.want);
      });
    }
  });
}

/** Every rule spec in a fixture schema, with the node carrying it. */
function specsOf(s: Schema, out: [Schema, Record<string, unknown>][] = []): [Schema, Record<string, unknown>][] {
  for (const r of s['x-cluster-rules'] ?? []) out.push([s, r]);
  for (const p of Object.values(s.properties ?? {})) specsOf(p, out);
  if (s.items) specsOf(s.items, out);
  return out;
}

describe('descriptions and CEL lowering', () => {
  for (const [kind, f] of Object.entries(fixtures)) {
    it(kind, () => {
      const rule = RULES.get(kind)!;
      for (const [node, spec] of specsOf(f.schema).filter(([, r]) => r.rule === kind)) {
        const r = { rule: kind, ...spec };
        // a marker whose list rule describes the check adds nothing to the property's description
        if (kind === 'checkedByList') expect(rule.describe(r)).toBe('');
        else expect(rule.describe(r)).toMatch(/\S.*[.)]$/);
        const cel = rule.toCel(r, node);
        if (cel.rule) {
          expect(cel.rule.rule.length).toBeGreaterThan(0);
          expect(cel.rule.message ?? '').not.toBe('');
        } else {
          expect(cel.reason.length).toBeGreaterThan(0);
        }
      }
    });
  }
  it('lowers immutable to a transition rule with the same message', () => {
    expect(RULES.get('immutable')!.toCel({ rule: 'immutable' })).toEqual({ rule: { rule: 'self == oldSelf', message: 'field is immutable' } });
    expect(RULES.get('immutable')!.toCel({ rule: 'immutable', style: 'forbidden' }, undefined, 'provisioner')).toEqual({
      rule: { rule: 'self == oldSelf', message: 'updates to provisioner are forbidden.', reason: 'FieldValueForbidden' },
    });
  });
  it('lowers disjointKeys with a fieldPath', () => {
    expect(RULES.get('disjointKeys')!.toCel({ rule: 'disjointKeys', maps: ['data', 'binaryData'] })).toEqual({
      rule: {
        rule: '!(has(self.data)) || !(has(self.binaryData)) || self.data.all(k, !(k in self.binaryData))',
        message: 'duplicate of key present in binaryData',
        fieldPath: '.data',
      },
    });
  });
  it('reports parameter problems', () => {
    const node: Schema = { type: 'object', properties: { a: { type: 'string' } } };
    const env = { featureGates: {}, resolve: (s: Schema) => s };
    expect(RULES.get('exactlyOneOf')!.checkParams({ rule: 'exactlyOneOf', fields: ['a', 'zz'] }, node, env)).toMatch(/zz/);
    expect(RULES.get('syntax')!.checkParams({ rule: 'syntax', syntax: 'nope' }, { type: 'string' }, env)).toMatch(/syntax/);
    expect(RULES.get('note')!.checkParams({ rule: 'note' }, node, env)).toMatch(/text/);
  });
});
