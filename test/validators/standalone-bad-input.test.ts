// Hostile and malformed input to every standalone validator of out/validators: each case returns
// field errors (the ones the table names), never throws and never hangs (each case under a bound).
import { describe, expect, it } from 'vitest';
import * as validators from '../../out/validators/index.ts';
import type { FieldError } from '../../runtime/schema/types.ts';
import type { StandaloneValidator } from '../../runtime/schema/standalone.ts';

const modules = Object.values(validators);
const TEN_MB = 'x'.repeat(10 * 1024 * 1024);

/** An object nested `depth` levels deep under `key` (built without recursion). */
function nested(depth: number, key: string): Record<string, unknown> {
  let cur: Record<string, unknown> = {};
  for (let i = 0; i < depth; i++) cur = { [key]: cur };
  return cur;
}

/** A CRD whose schema nests `depth` levels of properties (JSONSchemaProps is recursive). */
function deepCrd(depth: number): unknown {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < depth; i++) schema = { type: 'object', properties: { a: schema } };
  return crd(schema);
}

function crd(openAPIV3Schema: unknown): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.cluster.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      scope: 'Namespaced',
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema } }],
    },
  };
}

function cyclicCrd(): unknown {
  const schema: Record<string, unknown> = { type: 'object', properties: {} };
  (schema.properties as Record<string, unknown>).self = schema;
  return crd(schema);
}

function cyclicMetadata(): unknown {
  const metadata: Record<string, unknown> = { name: 'a', namespace: 'default' };
  metadata.labels = metadata;
  return { metadata };
}

interface Case {
  name: string;
  input: () => unknown;
  /** Only for this kind (lowercase); every kind otherwise. */
  kind?: string;
  /** Some error has this field and a message matching. */
  want: { field: string; message: RegExp };
  strict?: boolean;
  /** No message may carry the input's long string (a Secret's bytes). */
  noEcho?: boolean;
}

const cases: Case[] = [
  { name: 'null', input: () => null, want: { field: '', message: /must be of type object/ } },
  { name: 'a number', input: () => 42, want: { field: '', message: /must be of type object: "integer"/ } },
  { name: 'an array', input: () => [], want: { field: '', message: /must be of type object: "array"/ } },
  { name: 'undefined', input: () => undefined, want: { field: '', message: /must be of type object: "null"/ } },
  { name: 'a 10 MB string', input: () => TEN_MB, want: { field: '', message: /must be of type object: "string"/ } },
  { name: 'a 10 MB name', kind: 'configmap', input: () => ({ metadata: { name: TEN_MB, namespace: 'default' } }), want: { field: 'metadata.name', message: /must be no more than 253 characters/ } },
  { name: 'a 10 MB label value', input: () => ({ metadata: { name: 'a', namespace: 'default', labels: { k: TEN_MB } } }), want: { field: 'metadata.labels', message: /must be no more than 63 characters/ } },
  { name: 'metadata of the wrong type', input: () => ({ metadata: 'x' }), want: { field: 'metadata', message: /./ } },
  { name: 'labels of the wrong type', input: () => ({ metadata: { name: 'a', namespace: 'default', labels: [1] } }), want: { field: 'metadata.labels', message: /./ } },
  { name: 'an unknown field 100,000 levels deep (strict)', input: () => ({ metadata: { name: 'a', namespace: 'default' }, zz: nested(100_000, 'a') }), want: { field: 'zz', message: /^unknown field "zz"$/ }, strict: true },
  { name: 'a cyclic metadata', input: cyclicMetadata, want: { field: 'metadata.labels[labels]', message: /must be of type string/ } },
  { name: 'a data value nested 100,000 levels', kind: 'configmap', input: () => ({ metadata: { name: 'a', namespace: 'default' }, data: { k: nested(100_000, 'a') } }), want: { field: 'data[k]', message: /must be of type string/ } },
  { name: 'a 10 MB data value', kind: 'configmap', input: () => ({ metadata: { name: 'a', namespace: 'default' }, data: { k: TEN_MB } }), want: { field: '[]', message: /Too long: may not be more than 1048576 bytes/ } },
  { name: 'a 10 MB Secret value (not echoed)', kind: 'secret', input: () => ({ metadata: { name: 'a', namespace: 'default' }, data: { k: `${TEN_MB}!` } }), want: { field: 'data[k]', message: /must be of type byte/ }, noEcho: true },
  // at the field where the schema recursion starts (runtime/schema/too-deep.ts)
  { name: 'a schema nested 50,000 levels', kind: 'customresourcedefinition', input: () => deepCrd(50_000), want: { field: 'spec.versions[0].schema.openAPIV3Schema', message: /nested too deeply/ } },
  { name: 'a cyclic schema', kind: 'customresourcedefinition', input: cyclicCrd, want: { field: 'spec.versions[0].schema.openAPIV3Schema', message: /nested too deeply/ } },
  { name: 'a cyclic schema (strict)', kind: 'customresourcedefinition', input: cyclicCrd, want: { field: 'spec.versions[0].schema.openAPIV3Schema', message: /nested too deeply/ }, strict: true },
];

const table = cases.flatMap((c) =>
  modules.filter((m) => !c.kind || m.resourceContext.kind.toLowerCase() === c.kind).map((m) => [`${m.resourceContext.kind}: ${c.name}`, m, c] as const),
);

describe('standalone validators on bad input', () => {
  it.each(table)('%s', (_name, m, c) => {
    const v: StandaloneValidator = m.createValidator();
    const input = c.input();
    const started = performance.now();
    let errors: FieldError[] = [];
    expect(() => {
      errors = v.validate(input, { strict: c.strict });
    }).not.toThrow();
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(errors.some((e) => e.field === c.want.field && c.want.message.test(e.message)), JSON.stringify(errors.slice(0, 5)).slice(0, 2000)).toBe(true);
    if (c.noEcho) for (const e of errors) expect(e.message.length).toBeLessThan(10_000);
  });

  it.each([
    ['not JSON', '{"metadata": ', /not valid JSON/, ''],
    ['a duplicate key (strict)', '{"metadata": {"name": "a", "name": "b"}}', /^duplicate field "metadata.name"$/, 'metadata.name'],
    ['a duplicate key in a list item (strict)', '{"metadata": {"name": "a"}, "x": [{"a": 1, "a": 2}]}', /^duplicate field "x\[0\].a"$/, 'x[0].a'],
  ])('JSON text: %s', (_name, text, message, field) => {
    const errors = validators.ConfigMap.validateJSON(text, { strict: true });
    expect(errors.some((e) => e.field === field && message.test(e.message)), JSON.stringify(errors)).toBe(true);
  });

  it('reports nothing strict without the option', () => {
    const text = '{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "n", "name": "a"}, "zz": 1}';
    expect(validators.ConfigMap.validateJSON(text)).toEqual([]);
    expect(validators.ConfigMap.validateJSON(text, { strict: true }).map((e) => e.message)).toEqual(['duplicate field "metadata.name"', 'unknown field "zz"']);
  });
});
