// CRD writes with schemas nested beyond what the schema walks take: one error where the schema
// starts (runtime/schema/too-deep.ts), never a throw, at V8's default stack.
import { describe, expect, it } from 'vitest';
import * as crdObjectRules from '../../out/validators/customresourcedefinition.ts';
import { validateCRD, validateCRDSchemas, validateCRDUpdate } from './validate-crd.ts';
import type { CustomResourceDefinition } from './types.ts';

const AT = 'spec.versions[0].schema.openAPIV3Schema';

function nestedSchema(depth: number, leaf: Record<string, unknown> = { type: 'string' }): Record<string, unknown> {
  let s = leaf;
  for (let i = 0; i < depth; i++) s = { type: 'object', properties: { a: s } };
  return s;
}

function crd(schema: unknown, spec: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.cluster.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
      ...spec,
    },
  };
}

const cyclic = (): Record<string, unknown> => {
  const s: Record<string, unknown> = { type: 'object', properties: {} };
  (s.properties as Record<string, unknown>).a = s;
  return s;
};

const text = (errs: { field: string; message: string }[]): string[] => errs.map((e) => `${e.field}: ${e.message}`);
const TOO_DEEP = `${AT}: Invalid value: the object is nested too deeply (or is cyclic) to be validated`;

describe('CRD schemas nested deeply', () => {
  const cases: { name: string; crd: () => Record<string, unknown>; want: string[] }[] = [
    { name: '300 levels: checked as usual', crd: () => crd(nestedSchema(300)), want: [] },
    { name: '300 levels with a bad leaf: the leaf reported', crd: () => crd(nestedSchema(300, { type: 'object', properties: { b: {} } })), want: [`${AT}${'.properties[a]'.repeat(300)}.properties[b].type: Required value: must not be empty for specified object fields`] },
    { name: '2,000 levels: one error where the schema starts', crd: () => crd(nestedSchema(2000)), want: [TOO_DEEP] },
    { name: '100,000 levels', crd: () => crd(nestedSchema(100_000)), want: [TOO_DEEP] },
    { name: 'a cyclic schema', crd: () => crd(cyclic()), want: [TOO_DEEP] },
    {
      name: '2,000 levels with a default at the bottom and preserveUnknownFields: both found, without recursion',
      crd: () => crd(nestedSchema(2000, { type: 'string', default: 'x' }), { preserveUnknownFields: true }),
      want: [
        'spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-cluster-preserve-unknown-fields to true in spec.versions[*].schema instead',
        'spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema',
        TOO_DEEP,
      ],
    },
  ];
  for (const c of cases) {
    it(`${c.name} (create and update)`, () => {
      expect(text(validateCRD(c.crd(), { objectRules: crdObjectRules })).sort()).toEqual([...c.want].sort());
      expect(text(validateCRDUpdate(c.crd(), crd(nestedSchema(1)), { objectRules: crdObjectRules })).filter((e) => !e.startsWith('spec.preserveUnknownFields')).sort()).toEqual(c.want.filter((e) => !e.startsWith('spec.preserveUnknownFields')).sort());
    });
  }

  it('the schema-aware checks report it from the object rules\' schema', () => {
    const deep = crd(nestedSchema(2000)) as unknown as CustomResourceDefinition;
    expect(text(validateCRDSchemas(deep, undefined, { objectRules: crdObjectRules }))).toEqual([TOO_DEEP]);
  });
});
