import { describe, expect, it } from 'vitest';
import { compileSchemaToClosures, SchemaCompileError } from './compile.ts';
import type { FieldError, ResourceContext, Schema } from './types.ts';
import { fakeCel, loadFixture } from './testutil.ts';

interface Case {
  name: string;
  schema?: Schema;
  definitions?: Record<string, Schema>;
  resource?: ResourceContext;
  object: unknown;
  old?: unknown;
  want: FieldError[];
}

function run(c: Case, schema: Schema, resource?: ResourceContext): FieldError[] {
  const v = compileSchemaToClosures(schema, { definitions: c.definitions, resource });
  return c.old === undefined ? v.validate(c.object) : v.validateUpdate(c.object, c.old);
}

describe('keywords (test/fixtures/schema/keywords.yaml)', () => {
  for (const c of loadFixture<Case[]>('keywords.yaml')) {
    it(c.name, () => {
      expect(run(c, c.schema!, c.resource)).toEqual(c.want);
    });
  }
});

const RESOURCE: ResourceContext = { kind: 'ConfigMap', group: '', version: 'v1', namespaced: true, nameSyntax: 'dns1123Subdomain' };
const ROOT: Schema = {
  type: 'object',
  properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object', 'x-cluster-preserve-unknown-fields': true } },
};

describe('metadata (test/fixtures/schema/metadata.yaml)', () => {
  for (const c of loadFixture<Case[]>('metadata.yaml')) {
    it(c.name, () => {
      expect(run(c, c.schema ?? ROOT, c.resource ?? RESOURCE)).toEqual(c.want);
    });
  }
});

describe('CEL rules (x-cluster-validations)', () => {
  const cel = fakeCel({
    'self.min <= self.max': (s) => ((s as { min?: number }).min ?? 0) <= ((s as { max?: number }).max ?? 0),
    'self == oldSelf': (s, o) => s === o,
    'self.size() > 0': (s) => (s as string).length > 0,
  });
  const schema: Schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        'x-cluster-validations': [{ rule: 'self.min <= self.max', message: 'min must not exceed max', fieldPath: '.min' }],
        properties: {
          min: { type: 'integer' },
          max: { type: 'integer' },
          name: { type: 'string', 'x-cluster-validations': [{ rule: 'self == oldSelf', message: 'name is immutable', reason: 'FieldValueForbidden' }] },
          tag: { type: 'string', 'x-cluster-validations': [{ rule: 'self.size() > 0' }] },
        },
      },
      items: {
        type: 'array',
        'x-cluster-list-type': 'map',
        'x-cluster-list-map-keys': ['k'],
        items: {
          type: 'object',
          properties: { k: { type: 'string' }, v: { type: 'string', 'x-cluster-validations': [{ rule: 'self == oldSelf', message: 'v is immutable' }] } },
        },
      },
    },
  };
  const v = compileSchemaToClosures(schema, { cel });

  it('reports a failing rule at its fieldPath with the schema type as value', () => {
    expect(v.validate({ spec: { min: 3, max: 1, tag: '' } })).toEqual([
      { field: 'spec.tag', reason: 'FieldValueInvalid', message: 'Invalid value: "string": failed rule: self.size() > 0' },
      { field: 'spec.min', reason: 'FieldValueInvalid', message: 'Invalid value: "object": min must not exceed max' },
    ]);
  });
  it('skips transition rules on create and runs them on update', () => {
    expect(v.validate({ spec: { name: 'a' } })).toEqual([]);
    expect(v.validateUpdate({ spec: { name: 'b' } }, { spec: { name: 'a' } })).toEqual([
      { field: 'spec.name', reason: 'FieldValueForbidden', message: 'Forbidden: name is immutable' },
    ]);
  });
  it('correlates list-map items by key for transition rules', () => {
    const old = { items: [{ k: 'a', v: '1' }, { k: 'b', v: '2' }] };
    expect(v.validateUpdate({ items: [{ k: 'b', v: '2' }, { k: 'a', v: '1' }, { k: 'c', v: '3' }] }, old)).toEqual([]);
    expect(v.validateUpdate({ items: [{ k: 'b', v: '9' }] }, old)).toEqual([
      { field: 'items[0].v', reason: 'FieldValueInvalid', message: 'Invalid value: "string": v is immutable' },
    ]);
  });
  it('throws without an engine', () => {
    expect(() => compileSchemaToClosures(schema, {})).toThrow(SchemaCompileError);
  });
  it('turns a CEL compile error into a SchemaCompileError with the rule path', () => {
    const bad: Schema = { type: 'object', properties: { a: { type: 'string', 'x-cluster-validations': [{ rule: 'nope(' }] } } };
    try {
      compileSchemaToClosures(bad, { cel });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(SchemaCompileError);
      expect((e as SchemaCompileError).path).toBe('/properties/a/x-cluster-validations/0/rule');
    }
  });
});

describe('malformed schemas', () => {
  const cases: [string, Schema, string, Record<string, Schema>?][] = [
    ['unknown rule kind', { type: 'object', 'x-cluster-rules': [{ rule: 'nope' }] }, '/x-cluster-rules/0'],
    ['rule naming a missing field', { type: 'object', properties: { a: { type: 'string' } }, 'x-cluster-rules': [{ rule: 'atMostOneOf', fields: ['a', 'b'] }] }, '/x-cluster-rules/0'],
    ['unknown $ref', { type: 'object', properties: { a: { $ref: '#/components/schemas/Missing' } } }, '/properties/a/$ref'],
    ['bad pattern', { type: 'string', pattern: '(' }, '/pattern'],
    ['map list without keys', { type: 'array', 'x-cluster-list-type': 'map', items: { type: 'object' } }, '/x-cluster-list-map-keys'],
    ['unknown type', { type: 'strin' } as unknown as Schema, '/type'],
  ];
  for (const [name, schema, path, defs] of cases) {
    it(name, () => {
      let err: unknown;
      try {
        compileSchemaToClosures(schema, { definitions: defs });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(SchemaCompileError);
      expect((err as SchemaCompileError).path).toBe(path);
    });
  }
});

describe('applyDefaults', () => {
  const schema: Schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          mode: { type: 'string', default: 'Filesystem' },
          nested: { type: 'object', properties: { port: { type: 'integer', default: 443 } } },
          opt: { type: 'object', default: {}, properties: { x: { type: 'string', default: 'dx' } } },
          list: { type: 'array', items: { type: 'object', properties: { p: { type: 'string', default: 'TCP' } } } },
          nul: { type: 'string', default: 'd' },
        },
      },
    },
  };
  const v = compileSchemaToClosures(schema, {});
  it('fills absent fields, recursing into existing and defaulted objects only', () => {
    const obj = { spec: { list: [{}, { p: 'UDP' }], nul: null } };
    v.applyDefaults(obj);
    expect(obj).toEqual({ spec: { mode: 'Filesystem', opt: { x: 'dx' }, list: [{ p: 'TCP' }, { p: 'UDP' }], nul: 'd' } });
  });
  it('does not create missing parents', () => {
    const obj = {};
    v.applyDefaults(obj);
    expect(obj).toEqual({});
  });
});

describe('prune', () => {
  const schema: Schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          a: { type: 'string' },
          raw: { type: 'object', 'x-cluster-preserve-unknown-fields': true },
          list: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' } } } },
          map: { type: 'object', additionalProperties: { type: 'object', properties: { k: { type: 'string' } } } },
          emb: { type: 'object', 'x-cluster-embedded-resource': true, properties: { spec: { type: 'object', properties: {} } } },
        },
      },
    },
  };
  const v = compileSchemaToClosures(schema, { resource: RESOURCE });
  it('drops unknown fields and reports their paths', () => {
    const obj = {
      apiVersion: 'v1', kind: 'X', metadata: { name: 'a', labels: { x: 'y' } }, extra: 1,
      spec: {
        a: 'x', b: 'y', raw: { anything: { deep: true } }, list: [{ k: 'a', z: 1 }], map: { key: { k: 'a', z: 2 } },
        emb: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { gone: 1 }, other: 2 },
      },
    };
    const dropped = v.prune(obj);
    expect(dropped.sort()).toEqual(['extra', 'spec.b', 'spec.emb.other', 'spec.emb.spec.gone', 'spec.list[0].z', 'spec.map[key].z'].sort());
    expect(obj).toEqual({
      apiVersion: 'v1', kind: 'X', metadata: { name: 'a', labels: { x: 'y' } },
      spec: { a: 'x', raw: { anything: { deep: true } }, list: [{ k: 'a' }], map: { key: { k: 'a' } }, emb: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} } },
    });
  });
});
