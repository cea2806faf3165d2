// test/fixtures/documented-fields/<kind>.yaml lists every field the documents describe, with its
// type, required flag and enumerated values, written down from the documents by hand. Each must be
// in the generated OpenAPI schema of that kind with the same facts.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

interface DocumentedField {
  path: string;
  /** `untyped`: any JSON value (x-cluster-preserve-unknown-fields without a type). */
  type: 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'untyped';
  required?: boolean;
  enum?: string[];
}

interface OutSchema {
  $ref?: string;
  allOf?: OutSchema[];
  type?: string;
  format?: string;
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, OutSchema>;
  items?: OutSchema;
  additionalProperties?: OutSchema | boolean;
  'x-cluster-group-version-kind'?: Array<{ kind: string }>;
  'x-cluster-int-or-string'?: boolean;
  'x-cluster-preserve-unknown-fields'?: boolean;
}

const root = join(import.meta.dirname, '..', '..');
const doc = JSON.parse(readFileSync(join(root, 'out', 'openapi', 'v3', 'all.json'), 'utf8')) as { components: { schemas: Record<string, OutSchema> } };
const schemas = doc.components.schemas;
const deref = (s: OutSchema): OutSchema => {
  if (s.$ref) return deref(schemas[s.$ref.replace('#/components/schemas/', '')]);
  if (s.allOf?.length === 1 && !s.type) return { ...deref(s.allOf[0]), ...s, allOf: undefined };
  return s;
};
function rootSchema(name: string): OutSchema | undefined {
  const byKind = Object.values(schemas).find((s) => s['x-cluster-group-version-kind']?.some((g) => g.kind.toLowerCase() === name));
  return byKind ?? Object.entries(schemas).find(([k]) => k.split('.').pop()!.toLowerCase() === name)?.[1];
}

function lookup(rootName: string, path: string): { schema: OutSchema; required: boolean } | string {
  let node = rootSchema(rootName);
  if (!node) return `no schema for ${rootName}`;
  let required = false;
  for (const part of path.split('.')) {
    const [name, ...arrays] = part.split('[]');
    node = deref(node);
    const next: OutSchema | undefined = node.properties?.[name];
    if (!next) return `no field ${name} in ${path}`;
    required = (node.required ?? []).includes(name);
    node = next;
    for (let i = 0; i < arrays.length; i++) {
      node = deref(node);
      if (!node.items) return `${name} is not a list in ${path}`;
      node = node.items;
    }
  }
  return { schema: deref(node), required };
}

const dir = join(root, 'test', 'fixtures', 'documented-fields');
const cases = existsSync(dir)
  ? readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort().flatMap((f) => {
      const kind = f.replace(/\.yaml$/, '');
      return (parse(readFileSync(join(dir, f), 'utf8')) as DocumentedField[]).map((field) => [`${kind} ${field.path}`, kind, field] as const);
    })
  : [];

describe('every documented field is in the generated OpenAPI', () => {
  it.each(cases)('%s', (_name, kind, field) => {
    const found = lookup(kind, field.path);
    expect(typeof found === 'string' ? found : 'found').toBe('found');
    if (typeof found === 'string') return;
    const s = found.schema;
    const type = s['x-cluster-int-or-string'] ? 'string'
      : s.type ?? (s.properties ? 'object' : s['x-cluster-preserve-unknown-fields'] ? 'untyped' : undefined);
    expect(type, 'type').toBe(field.type);
    if (field.required !== undefined) expect(found.required, 'required').toBe(field.required);
    if (field.enum) expect([...(found.schema.enum ?? [])].sort(), 'enum').toEqual([...field.enum].sort());
  });
});
