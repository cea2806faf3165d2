// Structural-schema checks of a CRD write: each rule with a valid and an invalid schema and the
// exact upstream-shaped errors.
import { describe, expect, it } from 'vitest';
import { validateSchema } from './structural.ts';
import { compileSchemaRules } from './cel-rules.ts';
import * as crdObjectRules from '../../out/validators/customresourcedefinition.ts';
import { validateCRD, validateCRDUpdate } from './validate-crd.ts';

const P = 'spec.versions[0].schema.openAPIV3Schema';
const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra });

interface Case {
  name: string;
  valid: unknown;
  invalid: unknown;
  errors: string[];
}

const cases: Case[] = [
  {
    name: 'root type is object',
    valid: obj({}),
    invalid: { type: 'array', items: { type: 'string' } },
    errors: [`${P}.type: Invalid value: "array": must be object at the root`],
  },
  {
    name: 'root type is required',
    valid: obj({ a: { type: 'string' } }),
    invalid: { properties: { a: { type: 'string' } } },
    errors: [`${P}.type: Required value: must not be empty at the root`],
  },
  {
    name: 'object fields have a type',
    valid: obj({ spec: obj({ a: { type: 'string' } }) }),
    invalid: obj({ spec: { properties: { a: { type: 'string' } } } }),
    errors: [`${P}.properties[spec].type: Required value: must not be empty for specified object fields`],
  },
  {
    name: 'array items have a type',
    valid: obj({ l: { type: 'array', items: { type: 'string' } } }),
    invalid: obj({ l: { type: 'array', items: { minLength: 1 } } }),
    errors: [`${P}.properties[l].items.type: Required value: must not be empty for specified array items`],
  },
  {
    name: 'arrays have items',
    valid: obj({ l: { type: 'array', items: { type: 'integer' } } }),
    invalid: obj({ l: { type: 'array' } }),
    errors: [`${P}.properties[l].items: Required value: must be specified`],
  },
  {
    name: 'no type needed under preserve-unknown-fields',
    valid: obj({ any: { 'x-cluster-preserve-unknown-fields': true } }),
    invalid: obj({ any: { description: 'anything' } }),
    errors: [`${P}.properties[any].type: Required value: must not be empty for specified object fields`],
  },
  {
    name: 'int-or-string: anyOf integer/string form',
    valid: obj({ port: { 'x-cluster-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } }),
    invalid: obj({ port: { 'x-cluster-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string', description: 'd' }] } }),
    errors: [
      `${P}.properties[port].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${P}.properties[port].anyOf[1].description: Forbidden: must be empty to be structural`,
      `${P}.properties[port].anyOf[1].type: Forbidden: must be empty to be structural`,
    ],
  },
  {
    name: 'int-or-string: allOf containing the anyOf',
    valid: obj({ q: { 'x-cluster-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: '^[0-9]+$' }] } }),
    invalid: obj({ q: { 'x-cluster-int-or-string': true, 'x-cluster-preserve-unknown-fields': true } }),
    errors: [`${P}.properties[q].x-cluster-preserve-unknown-fields: Invalid value: true: must be false if x-cluster-int-or-string is true`],
  },
  {
    name: 'nothing structural inside allOf/anyOf/oneOf/not',
    valid: obj({ a: { type: 'string', allOf: [{ minLength: 1 }], not: { enum: ['x'] } } }),
    invalid: obj({ a: { type: 'string', allOf: [{ type: 'string', default: 'x', description: 'd', nullable: true, 'x-cluster-validations': [{ rule: 'true' }] }], oneOf: [{ 'x-cluster-list-type': 'set' }] } }),
    errors: [
      `${P}.properties[a].allOf[0].default: Forbidden: must be undefined to be structural`,
      `${P}.properties[a].allOf[0].description: Forbidden: must be empty to be structural`,
      `${P}.properties[a].allOf[0].nullable: Forbidden: must be false to be structural`,
      `${P}.properties[a].allOf[0].type: Forbidden: must be empty to be structural`,
      `${P}.properties[a].allOf[0].x-cluster-validations: Forbidden: must be empty to be structural`,
      `${P}.properties[a].oneOf[0].x-cluster-list-type: Forbidden: must be undefined to be structural`,
      `${P}.properties[a].oneOf[0].type: Required value: must be array if x-cluster-list-type is specified`,
    ],
  },
  {
    name: 'fields named in junctors are specified outside them',
    valid: obj({ a: { type: 'string' } }, { anyOf: [{ required: ['a'] }, { properties: { a: { minLength: 2 } } }] }),
    invalid: obj({ a: { type: 'string' } }, { anyOf: [{ properties: { b: { minLength: 1 } } }] }),
    errors: [`${P}.properties[b]: Required value: because it is defined in ${P}.anyOf[0].properties[b]`],
  },
  {
    name: 'properties and additionalProperties are exclusive',
    valid: obj({ m: { type: 'object', additionalProperties: { type: 'string' } } }),
    invalid: obj({ m: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } } }),
    errors: [`${P}.properties[m].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`],
  },
  {
    name: 'no additionalProperties at the root',
    valid: obj({ data: { type: 'object', additionalProperties: { type: 'string' } } }),
    invalid: { type: 'object', additionalProperties: { type: 'string' } },
    errors: [`${P}.additionalProperties: Forbidden: must not be used at the root`],
  },
  {
    name: 'root metadata constrains only name and generateName',
    valid: obj({ metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 10 }, generateName: { type: 'string' } } } }),
    invalid: obj({ metadata: { type: 'object', properties: { name: { type: 'string' }, labels: { type: 'object' } } } }),
    errors: [`${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`],
  },
  {
    name: 'root metadata has no default',
    valid: obj({ metadata: { type: 'object' } }),
    invalid: obj({ metadata: { type: 'object', default: {} } }),
    errors: [`${P}.properties[metadata].default: Forbidden: must not be set in top-level metadata`],
  },
  {
    name: 'embedded resources are objects',
    valid: obj({ e: { type: 'object', 'x-cluster-embedded-resource': true, 'x-cluster-preserve-unknown-fields': true } }),
    invalid: obj({ e: { 'x-cluster-embedded-resource': true, 'x-cluster-preserve-unknown-fields': true } }),
    errors: [`${P}.properties[e].type: Required value: must be object if x-cluster-embedded-resource is true`],
  },
  {
    name: 'embedded resources declare properties or preserve unknown fields',
    valid: obj({ e: { type: 'object', 'x-cluster-embedded-resource': true, properties: { spec: { type: 'object' } } } }),
    invalid: obj({ e: { type: 'object', 'x-cluster-embedded-resource': true } }),
    errors: [`${P}.properties[e].properties: Required value: must not be empty if x-cluster-embedded-resource is true without x-cluster-preserve-unknown-fields`],
  },
  {
    name: 'list-type map needs keys and object items',
    valid: obj({ l: { type: 'array', 'x-cluster-list-type': 'map', 'x-cluster-list-map-keys': ['name'], items: obj({ name: { type: 'string' } }, { required: ['name'] }) } }),
    invalid: obj({ l: { type: 'array', 'x-cluster-list-type': 'map', items: { type: 'string' } } }),
    errors: [
      `${P}.properties[l].x-cluster-list-map-keys: Required value: must not be empty if x-cluster-list-type is map`,
      `${P}.properties[l].items.type: Invalid value: "string": must be object if parent array's x-cluster-list-type is map`,
    ],
  },
  {
    name: 'list-map keys are required or defaulted',
    valid: obj({ l: { type: 'array', 'x-cluster-list-type': 'map', 'x-cluster-list-map-keys': ['port'], items: obj({ port: { type: 'integer', default: 80 } }) } }),
    invalid: obj({ l: { type: 'array', 'x-cluster-list-type': 'map', 'x-cluster-list-map-keys': ['port', 'nope'], items: obj({ port: { type: 'integer' } }) } }),
    errors: [
      `${P}.properties[l].x-cluster-list-map-keys: Invalid value: ["port","nope"]: entries must all be names of item properties`,
      `${P}.properties[l].items.properties[port].default: Required value: this property is in x-cluster-list-map-keys, so it must have a default or be a required property`,
    ],
  },
  {
    name: 'preserve-unknown-fields is true or absent',
    valid: obj({ a: { type: 'object', 'x-cluster-preserve-unknown-fields': true } }),
    invalid: obj({ a: { type: 'object', 'x-cluster-preserve-unknown-fields': false } }),
    errors: [`${P}.properties[a].x-cluster-preserve-unknown-fields: Invalid value: false: must be true or undefined`],
  },
  {
    name: 'defaults survive pruning',
    valid: obj({ a: obj({ x: { type: 'string' } }, { default: { x: 'a' } }) }),
    invalid: obj({ a: obj({ x: { type: 'string' } }, { default: { x: 'a', y: 'b' } }) }),
    errors: [`${P}.properties[a].default: Invalid value: {"x":"a","y":"b"}: must not have unknown fields`],
  },
  {
    name: 'defaults validate against their schema',
    valid: obj({ replicas: { type: 'integer', minimum: 1, default: 1 } }),
    invalid: obj({ replicas: { type: 'integer', minimum: 1, default: 0 }, mode: { type: 'string', enum: ['a', 'b'], default: 'c' } }),
    errors: [
      `${P}.properties[mode].default: Unsupported value: "c": supported values: "a", "b"`,
      `${P}.properties[replicas].default: Invalid value: 0: ${P}.properties[replicas].default in body should be greater than or equal to 1`,
    ],
  },
  {
    name: 'map-type only on objects',
    valid: obj({ m: { type: 'object', 'x-cluster-map-type': 'atomic', additionalProperties: { type: 'string' } } }),
    invalid: obj({ m: { type: 'string', 'x-cluster-map-type': 'atomic' } }),
    errors: [`${P}.properties[m].type: Invalid value: "string": must be object if x-cluster-map-type is specified`],
  },
  {
    name: 'uniqueItems is forbidden',
    valid: obj({ l: { type: 'array', 'x-cluster-list-type': 'set', items: { type: 'string' } } }),
    invalid: obj({ l: { type: 'array', uniqueItems: true, items: { type: 'string' } } }),
    errors: [`${P}.properties[l].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`],
  },
];

const text = (errs: { field: string; message: string }[]) => errs.map((e) => `${e.field}: ${e.message}`);

describe('structural schema checks', () => {
  it.each(cases)('$name: the valid schema passes', ({ valid }) => {
    expect(text(validateSchema(valid, P))).toEqual([]);
  });
  it.each(cases)('$name: the invalid schema reports exactly its errors', ({ invalid, errors }) => {
    expect(text(validateSchema(invalid, P))).toEqual(errors);
  });

  it('returns every problem at once, sorted as upstream sorts structural errors', () => {
    const errs = text(validateSchema(obj({ b: { properties: {} }, a: { type: 'array' }, metadata: { type: 'object', properties: { labels: { type: 'object' } } } }), P));
    expect(errs).toEqual([
      `${P}.properties[a].items: Required value: must be specified`,
      `${P}.properties[b].type: Required value: must not be empty for specified object fields`,
      `${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    ]);
  });
});

describe('x-cluster-validations compiled at write time', () => {
  const schema = () => obj({
    spec: obj({ a: { type: 'integer' }, items: { type: 'array', maxItems: 10, items: obj({ x: { type: 'string', maxLength: 10 } }, { 'x-cluster-validations': [{ rule: 'self.x == oldSelf.x' }] }) } }, {
      'x-cluster-validations': [
        { rule: 'self.b > 0' },
        { rule: 'self.a >' },
        { rule: 'self.a > 0', reason: 'Nope' },
        { rule: 'self.a > 0', message: ' ' },
        { rule: 'self.a > 0', fieldPath: '.zzz' },
        { rule: 'self.a > 0' },
      ],
    }),
  });
  it('reports each bad rule at its path, with the position of compile errors', () => {
    const r = compileSchemaRules(schema(), P);
    const sp = `${P}.properties[spec].x-cluster-validations`;
    expect(text(r.errors)).toEqual([
      `${sp}[0].rule: Invalid value: {"rule":"self.b > 0"}: compilation failed: ERROR: <input>:1:6: No such key: b`,
      `${sp}[1].rule: Invalid value: {"rule":"self.a >"}: compilation failed: ERROR: <input>:1:9: Unexpected token: EOF`,
      `${sp}[2].reason: Unsupported value: "Nope": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
      `${sp}[3].message: Invalid value: " ": message must be non-empty if specified`,
      `${sp}[4].fieldPath: Invalid value: ".zzz": fieldPath must be a valid path`,
      `${P}.properties[spec].properties[items].items.x-cluster-validations[0].rule: Invalid value: "self.x == oldSelf.x": oldSelf cannot be used on the uncorrelatable portion of the schema within ${P}.properties[spec].properties[items]`,
    ]);
  });

  // cel-go's checker refuses has() on a field the object type does not declare (upstream's CRD write
  // fails with it, located at the call's parenthesis); maps, preserved objects and declared fields compile.
  it.each([
    ['an undeclared field of an object', 'has(self.spec.b)', "compilation failed: ERROR: <input>:1:4: undefined field 'b'"],
    ['an undeclared field deeper down', '!has(self.spec.o) || has(self.spec.o.zz)', "compilation failed: ERROR: <input>:1:25: undefined field 'zz'"],
    ['root metadata beyond name and generateName', 'has(self.metadata.labels)', "compilation failed: ERROR: <input>:1:4: undefined field 'labels'"],
    ['a declared field', 'has(self.spec.a)', null],
    ['a key of a map', 'has(self.spec.m.anything)', null],
    ['a field of a preserved object', 'has(self.spec.p.anything)', null],
    ['root metadata.name', 'has(self.metadata.name)', null],
  ])('has() on %s', (_name, rule, want) => {
    const schema = obj({
      spec: obj({
        a: { type: 'integer' },
        o: obj({ x: { type: 'string' } }),
        m: { type: 'object', additionalProperties: { type: 'string' } },
        p: { type: 'object', 'x-cluster-preserve-unknown-fields': true },
      }),
    }, { 'x-cluster-validations': [{ rule }] });
    const errs = text(compileSchemaRules(schema, P).errors);
    expect(errs).toEqual(want === null ? [] : [`${P}.x-cluster-validations[0].rule: Invalid value: ${JSON.stringify({ rule })}: ${want}`]);
  });

  it('multiplies costs by list cardinalities and sums them for the CRD limit', () => {
    const rule = { rule: 'self.x.size() > 0' };
    const bounded = compileSchemaRules(obj({ l: { type: 'array', maxItems: 5, items: obj({ x: { type: 'string', maxLength: 5 } }, { 'x-cluster-validations': [rule] }) } }), P);
    expect(bounded.errors).toEqual([]);
    expect(bounded.rules).toHaveLength(1);
    expect(bounded.rules[0].cardinality).toBe(5);
    expect(bounded.totalCost).toBe(bounded.rules[0].estimatedCost * 5);

    const unbounded = compileSchemaRules(obj({ l: { type: 'array', items: obj({ x: { type: 'string' } }, { 'x-cluster-validations': [{ rule: "self.x.matches('^a+$')" }] }) } }), P);
    expect(unbounded.rules[0].cardinality).toBe(Math.floor((3 * 1024 * 1024) / 3));
    expect(text(unbounded.errors)).toEqual([
      expect.stringMatching(new RegExp(`^${P.replace(/[.[\]]/g, '\\$&')}\\.properties\\[l\\]\\.items\\.x-cluster-validations\\[0\\]\\.rule: Forbidden: estimated rule cost exceeds budget by factor of`)),
      `${P}.properties[l].items.x-cluster-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      expect.stringMatching(new RegExp(`^${P.replace(/[.[\]]/g, '\\$&')}: Forbidden: x-cluster-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x`)),
    ]);
  });
});

describe('CRD write validation', () => {
  const crd = (schema: unknown, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'apiextensions.cluster.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.cluster.io' },
    spec: { group: 'example.cluster.io', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }], ...extra },
  });

  it('accepts a structural CRD', () => {
    expect(validateCRD(crd(obj({ spec: obj({ a: { type: 'string' } }) })), { objectRules: crdObjectRules })).toEqual([]);
  });

  it('combines object rules, structural checks and rule compilation', () => {
    const bad = crd(obj({ spec: { properties: { a: { type: 'string' } }, 'x-cluster-validations': [{ rule: 'self.nope' }] } }));
    expect(text(validateCRD(bad, { objectRules: crdObjectRules }))).toEqual([`${P}.properties[spec].type: Required value: must not be empty for specified object fields`]);
  });

  it('forbids spec.preserveUnknownFields on v1', () => {
    expect(text(validateCRD(crd(obj({}), { preserveUnknownFields: true }), { objectRules: crdObjectRules }))).toContain(
      'spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-cluster-preserve-unknown-fields to true in spec.versions[*].schema instead',
    );
  });

  it('keeps versions listed in storedVersions', () => {
    const old = { ...crd(obj({})), status: { storedVersions: ['v1beta1', 'v1'] } };
    const next = crd(obj({}));
    expect(text(validateCRDUpdate(next, old, { objectRules: crdObjectRules }))).toContain(
      'status.storedVersions[0]: Invalid value: "v1beta1": missing from spec.versions; v1beta1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1beta1 and removes v1beta1 from status.storedVersions',
    );
  });

  it('checks selectable fields against the schema', () => {
    const c = crd(obj({ spec: obj({ color: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } }) }));
    (c.spec.versions[0] as Record<string, unknown>).selectableFields = [{ jsonPath: '.spec.color' }, { jsonPath: '.spec.tags' }, { jsonPath: '.spec.nope' }, { jsonPath: '.spec.color' }];
    expect(text(validateCRD(c, { objectRules: crdObjectRules }))).toEqual([
      'spec.versions[0].selectableFields[3].jsonPath: Duplicate value: ".spec.color"',
      'spec.versions[0].selectableFields[1].jsonPath: Invalid value: ".spec.tags": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
      'spec.versions[0].selectableFields[2].jsonPath: Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field',
    ]);
  });
});
