// Every generated OpenAPI document validates against the OpenAPI specification (3.0 or Swagger 2.0),
// and the per-group-version documents have upstream's shape.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';

const outDir = join(import.meta.dirname, '..', '..', 'out', 'openapi');
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : [join(dir, n)]));
const documents = files(outDir).filter((f) => f.endsWith('.json')).map((f) => [relative(outDir, f), f] as const);

/**
 * JSONSchemaProps has properties literally named `$ref` and `$schema` (as upstream publishes it); the
 * validator package follows every `$ref` key as a reference, so those two property names are renamed
 * for the check. Everything else is validated as written.
 */
function withoutRefNamedProperties(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutRefNamedProperties);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, k === 'properties' && v && typeof v === 'object'
    ? Object.fromEntries(Object.entries(v).map(([p, s]) => [p.startsWith('$') ? `dollar-${p.slice(1)}` : p, withoutRefNamedProperties(s)]))
    : withoutRefNamedProperties(v)]));
}

describe('generated OpenAPI documents', () => {
  it.each(documents)('%s validates against the OpenAPI specification', async (_name, file) => {
    const validator = new Validator();
    const doc = withoutRefNamedProperties(JSON.parse(readFileSync(file, 'utf8'))) as Record<string, unknown>;
    const result = await validator.validate(doc);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('names every kind with x-cluster-group-version-kind', () => {
    const doc = JSON.parse(readFileSync(join(outDir, 'v3', 'all.json'), 'utf8')) as {
      components: { schemas: Record<string, { 'x-cluster-group-version-kind'?: unknown }> };
      paths: Record<string, Record<string, { 'x-cluster-action'?: string }>>;
    };
    const kinds = Object.entries(doc.components.schemas).filter(([, s]) => s['x-cluster-group-version-kind']);
    expect(kinds.length).toBeGreaterThan(0);
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (method === 'parameters') continue;
        expect(op['x-cluster-action'], `${method} ${path}`).toBeDefined();
      }
    }
  });
});
