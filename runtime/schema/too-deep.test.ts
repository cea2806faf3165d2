// Input nested beyond what the validators walk: a bounded, deterministic answer at the field where
// the value enters the schema's recursion, for the closure compiler and the generated validators.
import { describe, expect, it } from 'vitest';
import { MAX_RECURSIVE_NESTING, nestedDeeperThan, schemaRecurses, tooDeepField } from './too-deep.ts';
import { compileSchemaToClosures } from './compile.ts';
import { TOO_DEEP } from './run.ts';
import type { Schema } from './types.ts';
import * as crdValidator from '../../out/validators/customresourcedefinition.ts';

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** A miniature CRD: a list of versions, each with a schema that contains itself (properties, items). */
const DEFS: Record<string, Schema> = {
  Doc: { type: 'object', properties: { versions: { type: 'array', items: ref('Version') }, notes: { type: 'object', 'x-cluster-preserve-unknown-fields': true } } },
  Version: { type: 'object', properties: { name: { type: 'string' }, schema: ref('Props') } },
  Props: { type: 'object', properties: { type: { type: 'string' }, properties: { type: 'object', additionalProperties: ref('Props') }, items: ref('Props') } },
};
const ROOT = ref('Doc');

const nestProps = (depth: number): Record<string, unknown> => {
  let s: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < depth; i++) s = { type: 'object', properties: { a: s } };
  return s;
};
const nestRaw = (depth: number): unknown => {
  let o: unknown = 'x';
  for (let i = 0; i < depth; i++) o = { a: o };
  return o;
};
const doc = (schema: unknown, extra: Record<string, unknown> = {}) => ({ versions: [{ name: 'v1', schema: { type: 'object' } }, { name: 'v2', schema }], ...extra });

describe('schemaRecurses', () => {
  const cases: { name: string; root: Schema; defs: Record<string, Schema>; want: boolean }[] = [
    { name: 'no definitions', root: { type: 'object', properties: { a: { type: 'string' } } }, defs: {}, want: false },
    { name: 'definitions without a cycle', root: ref('A'), defs: { A: { properties: { b: ref('B') } }, B: { type: 'string' } }, want: false },
    { name: 'a definition that refers to itself', root: ref('Doc'), defs: DEFS, want: true },
    { name: 'two definitions that refer to each other', root: ref('A'), defs: { A: { items: ref('B') }, B: { properties: { a: ref('A') } } }, want: true },
    { name: 'a cycle the root does not reach', root: ref('A'), defs: { A: { type: 'string' }, B: { items: ref('B') } }, want: false },
    { name: 'a $ref inside a default value is data, not a reference', root: ref('A'), defs: { A: { type: 'object', default: { $ref: '#/components/schemas/A' } } }, want: false },
  ];
  for (const c of cases) it(c.name, () => expect(schemaRecurses(c.root, c.defs)).toBe(c.want));
});

describe('nestedDeeperThan', () => {
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const cases: { name: string; value: unknown; max: number; want: boolean }[] = [
    { name: 'a scalar', value: 'x', max: 0, want: false },
    { name: 'one object level, limit 1', value: { a: 1 }, max: 1, want: false },
    { name: 'one object level, limit 0', value: { a: 1 }, max: 0, want: true },
    { name: '1,000 levels, limit 1,000', value: nestRaw(1000), max: 1000, want: false },
    { name: '1,001 levels, limit 1,000', value: nestRaw(1001), max: 1000, want: true },
    { name: 'arrays count as levels', value: [[[['x']]]], max: 3, want: true },
    { name: 'a cycle', value: cyclic, max: 1000, want: true },
    { name: '100,000 levels (stops at the limit)', value: nestRaw(100_000), max: 1000, want: true },
  ];
  for (const c of cases) it(c.name, () => expect(nestedDeeperThan(c.value, c.max)).toBe(c.want));
});

describe('tooDeepField: where the value enters the recursion on its deepest path', () => {
  const cyclicSchema: Record<string, unknown> = { type: 'object', properties: {} };
  (cyclicSchema.properties as Record<string, unknown>).a = cyclicSchema;
  const cases: { name: string; value: unknown; want: string }[] = [
    { name: 'a schema nested through properties', value: doc(nestProps(3000)), want: 'versions[1].schema' },
    { name: 'a schema nested through items', value: doc((() => { let s: unknown = { type: 'string' }; for (let i = 0; i < 3000; i++) s = { items: s }; return s; })()), want: 'versions[1].schema' },
    { name: 'a cyclic schema', value: doc(cyclicSchema), want: 'versions[1].schema' },
    { name: 'a deep schema beside deeper preserved data: the walked path counts', value: doc(nestProps(3000), { notes: nestRaw(9000) }), want: 'versions[1].schema' },
    { name: 'no walked path past the limit: the longest walked one', value: doc(nestProps(50), { notes: nestRaw(5000) }), want: 'versions[1].schema' },
    { name: 'only preserved data is deep: nothing walked recurses, the root', value: { notes: nestRaw(5000) }, want: '' },
    { name: 'not an object', value: 'x', want: '' },
  ];
  for (const c of cases) it(c.name, () => expect(tooDeepField(ROOT, DEFS, c.value)).toBe(c.want));

  it('100,000 levels take no recursion and stop at the limit', () => {
    const started = performance.now();
    expect(tooDeepField(ROOT, DEFS, doc(nestProps(100_000)))).toBe('versions[1].schema');
    expect(performance.now() - started).toBeLessThan(500);
  });
});

describe('the closure compiler: a value nested beyond the limit of a schema that contains itself', () => {
  const v = compileSchemaToClosures(ROOT, { definitions: DEFS });
  const cases: { name: string; value: unknown; want: string[] }[] = [
    { name: 'within the limit: validated as usual', value: doc({ ...nestProps(400), type: 5 }), want: ['versions[1].schema.type'] },
    { name: 'beyond it: one error at the recursion', value: doc(nestProps(MAX_RECURSIVE_NESTING)), want: ['versions[1].schema'] },
    { name: 'a cyclic value: one error, no throw', value: doc(cyclicProps()), want: ['versions[1].schema'] },
    { name: 'preserved data nested beyond the limit: not walked, so validated as usual', value: doc({ type: 5 }, { notes: nestRaw(5000) }), want: ['versions[1].schema.type'] },
    { name: 'a cycle through preserved data: not walked, validated as usual', value: (() => { const d = doc({ type: 5 }) as Record<string, unknown>; d.notes = { d }; return d; })(), want: ['versions[1].schema.type'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const errs = [...v.validate(c.value), ...v.validateUpdate(c.value, c.value)];
      expect(errs.map((e) => e.field)).toEqual([...c.want, ...c.want]);
      if (c.want[0] === 'versions[1].schema') expect(errs[0].message).toBe(TOO_DEEP.message);
    });
  }

  it('a schema without recursion has no limit: its own depth bounds the walk', () => {
    const flat = compileSchemaToClosures({ type: 'object', properties: { a: { type: 'object', 'x-cluster-preserve-unknown-fields': true } } });
    expect(flat.validate({ a: nestRaw(5000) })).toEqual([]);
  });
});

function cyclicProps(): Record<string, unknown> {
  const s: Record<string, unknown> = { type: 'object', properties: {} };
  (s.properties as Record<string, unknown>).a = s;
  return s;
}

describe('the generated CustomResourceDefinition validator (out/validators)', () => {
  const crd = (schema: unknown) => ({
    apiVersion: 'apiextensions.cluster.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
    },
  });
  const AT = 'spec.versions[0].schema.openAPIV3Schema';
  const cases: { name: string; schema: unknown; want: string[] }[] = [
    { name: 'a schema 100 levels deep', schema: nestProps(100), want: [] },
    { name: 'a schema 2,000 levels deep', schema: nestProps(2000), want: [AT] },
    { name: 'a schema 100,000 levels deep', schema: nestProps(100_000), want: [AT] },
    { name: 'a cyclic schema', schema: cyclicProps(), want: [AT] },
    { name: 'a default value 5,000 levels deep (data, not walked)', schema: { type: 'object', default: nestRaw(5000) }, want: [] },
  ];
  for (const c of cases) {
    it(`${c.name}: the same answer for create, update and strict`, () => {
      const obj = crd(c.schema);
      expect(crdValidator.validate(obj).map((e) => e.field)).toEqual(c.want);
      expect(crdValidator.validateUpdate(obj, obj).map((e) => e.field)).toEqual(c.want);
      expect(crdValidator.validate(obj, { strict: true }).map((e) => e.field)).toEqual(c.want);
    });
  }
});
