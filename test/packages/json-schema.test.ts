// out/jsonschema and out/jsonschema-strict: every kind's file where kubeconform looks for it, every valid
// fixture accepted by both variants, unknown fields rejected by the strict variant only.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { Ajv, type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../generators/model/load.ts';
import { jsonSchemaPath } from '../../generators/json-schema/generator.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const { model } = await loadSpec(ROOT);
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const compiled = new Map<string, ValidateFunction>();
// by apiVersion too where given: Event is a kind of two groups
const validatorOf = (kind: string, strict: boolean, apiVersion?: string): ValidateFunction => {
  const r = model.resources.find((x) => x.kind === kind && (apiVersion === undefined || (x.group ? `${x.group}/${x.version}` : x.version) === apiVersion))!;
  const path = jsonSchemaPath(r, strict);
  if (!compiled.has(path)) compiled.set(path, ajv.compile(JSON.parse(readFileSync(join(ROOT, 'out', path), 'utf8')) as object));
  return compiled.get(path)!;
};

interface Fixture {
  kind: string;
  file: string;
  object: Record<string, unknown>;
}
const validFixtures: Fixture[] = readdirSync(join(ROOT, 'test/fixtures/objects')).flatMap((dir) =>
  readdirSync(join(ROOT, 'test/fixtures/objects', dir))
    .filter((f) => f.startsWith('valid'))
    .map((f) => ({ file: `${dir}/${f}`, ...(parse(readFileSync(join(ROOT, 'test/fixtures/objects', dir, f), 'utf8')) as { object?: Record<string, unknown>; old?: unknown }) }))
    // an update's verdict depends on the old object, which a JSON Schema never sees
    .filter((f) => f.old === undefined)
    .filter((f): f is Fixture => typeof f.object?.kind === 'string' && model.resources.some((r) => r.kind === f.object!.kind))
    .map((f) => ({ ...f, kind: f.object.kind as string })),
);

describe('JSON Schema per kind', () => {
  it('lies at <group>/<kind>_<version>.json (core kinds at the top), as kubeconform reads {{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json', () => {
    const table = [
      { kind: 'StorageClass', strict: false, path: 'jsonschema/storage.cluster.io/storageclass_v1.json' },
      { kind: 'StorageVersionMigration', strict: true, path: 'jsonschema-strict/storagemigration.cluster.io/storageversionmigration_v1alpha1.json' },
      { kind: 'ConfigMap', strict: false, path: 'jsonschema/configmap_v1.json' },
    ];
    for (const t of table) expect(jsonSchemaPath(model.resources.find((r) => r.kind === t.kind)!, t.strict)).toBe(t.path);
    for (const folder of ['jsonschema', 'jsonschema-strict']) {
      const files = readdirSync(join(ROOT, 'out', folder), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.json'));
      expect(files.length).toBe(model.resources.length);
    }
  });

  it('has valid fixtures to check', () => expect(validFixtures.length).toBeGreaterThan(model.resources.length));

  it.each(validFixtures)('accepts $file in both variants', ({ kind, object }) => {
    for (const strict of [false, true]) {
      const validate = validatorOf(kind, strict, object.apiVersion as string);
      expect(validate(object), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    }
  });

  const sc = { apiVersion: 'storage.cluster.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'csi.example.com' };
  const cases = [
    { name: 'a valid object', object: sc, plain: true, strict: true },
    { name: 'an unknown top-level field', object: { ...sc, provisionr: 'x' }, plain: true, strict: false },
    { name: 'an unknown field in metadata', object: { ...sc, metadata: { name: 'fast', labelz: {} } }, plain: true, strict: false },
    { name: 'an unknown field in a list item', object: { ...sc, allowedTopologies: [{ matchLabelExpressions: [{ key: 'k', values: ['v'], op: 'In' }] }] }, plain: true, strict: false },
    { name: 'a wrong type', object: { ...sc, allowVolumeExpansion: 'yes' }, plain: false, strict: false },
    { name: 'a value outside the enum', object: { ...sc, reclaimPolicy: 'Sometimes' }, plain: false, strict: false },
    { name: 'a missing required field', object: { apiVersion: sc.apiVersion, kind: sc.kind, metadata: sc.metadata }, plain: false, strict: false },
    { name: 'another apiVersion', object: { ...sc, apiVersion: 'storage.cluster.io/v2' }, plain: false, strict: false },
    { name: 'any field inside a map of strings', object: { ...sc, parameters: { anything: 'goes' } }, plain: true, strict: true },
  ];
  it.each(cases)('StorageClass with $name: plain $plain, strict $strict', ({ object, plain, strict }) => {
    expect(validatorOf('StorageClass', false)(object)).toBe(plain);
    expect(validatorOf('StorageClass', true)(object)).toBe(strict);
  });

  it('keeps the fields that take any value open in the strict variant (fieldsV1 of managedFields)', () => {
    const withManagedFields = { ...sc, metadata: { name: 'fast', managedFields: [{ manager: 'kubectl', operation: 'Apply', fieldsV1: { 'f:provisioner': {} } }] } };
    expect(validatorOf('StorageClass', true)(withManagedFields)).toBe(true);
  });
});
