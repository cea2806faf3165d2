// Walks test/fixtures/objects/<kind>/*.yaml: each fixture carries an object (and `old` for an
// update) and the field errors the generated validators must return, in upstream's wording.
// `valid-*` fixtures want no error. A fixture with `shape:` validates an embedded shape (Volume).
// Audit keys (issue 13): `upstream` names the upstream validation function a check comes from;
// `knownGap` says why our verdict differs, `want` stays our answer and `upstreamWant` holds upstream's.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import * as validators from '../../out/validators/index.ts';
import { definitions } from '../../out/validators/definitions.ts';
import { compileSchemaCode } from '../../runtime/schema/index.ts';
import { builtinCelRuleEngine } from '../../runtime/cel/index.ts';
import { featureGateDefaults } from '../../out/validators/feature-gates.ts';
import type { CompiledValidator, FieldError } from '../../runtime/schema/types.ts';
import { validateCRD, validateCRDUpdate } from '../../runtime/crd/validate-crd.ts';
import * as crdObjectRules from '../../out/validators/customresourcedefinition.ts';

const fixturesDir = join(import.meta.dirname, '..', 'fixtures', 'objects');

interface Fixture {
  shape?: string;
  featureGates?: Record<string, boolean>;
  object: unknown;
  old?: unknown;
  want?: FieldError[];
  deviation?: string;
  upstream?: string;
  knownGap?: string;
  upstreamWant?: FieldError[];
}

// The kinds whose fixtures were audited against upstream's validation functions, by group.
const auditedKinds = new Set([
  'storageclass', 'csidriver', 'csinode', 'csistoragecapacity', 'volumeattachment', 'volumeattributesclass',
  'configmap', 'secret', 'namespace', 'persistentvolumeclaim', 'persistentvolume',
  'customresourcedefinition', 'validatingwebhookconfiguration', 'storageversionmigration',
  'event', 'eventsv1event',
]);

type Validate = Pick<CompiledValidator, 'validate' | 'validateUpdate'>;
// By module, the schema name lowercased: the kind, or eventsv1event for the Event of events.cluster.io.
const byModule = new Map<string, Validate>(
  Object.entries(validators).map(([shape, v]) => [shape.toLowerCase(), v]),
);
const shapeValidators = new Map<string, CompiledValidator>();
function shapeValidator(shape: string, gates: Record<string, boolean> = {}): CompiledValidator {
  const key = `${shape}${JSON.stringify(gates)}`;
  let v = shapeValidators.get(key);
  if (!v) {
    v = compileSchemaCode({ $ref: `#/components/schemas/${shape}` }, { definitions, featureGates: { ...featureGateDefaults, ...gates }, cel: builtinCelRuleEngine, celErrorValue: 'value' });
    shapeValidators.set(key, v);
  }
  return v;
}

const cases = existsSync(fixturesDir)
  ? readdirSync(fixturesDir).sort().flatMap((dir) =>
      readdirSync(join(fixturesDir, dir)).filter((f) => f.endsWith('.yaml')).sort().map((f) => [`${dir}/${f}`, dir, parse(readFileSync(join(fixturesDir, dir, f), 'utf8')) as Fixture] as const),
    )
  : [];

describe('validators against the fixtures', () => {
  it('has fixtures for every resource', () => {
    const dirs = new Set(cases.map(([, dir]) => dir));
    for (const kind of byModule.keys()) expect(dirs.has(kind), `test/fixtures/objects/${kind}/`).toBe(true);
  });

  it('names the upstream function of every audited invalid fixture', () => {
    const audited = cases.filter(([name, dir]) => auditedKinds.has(dir) && !name.split('/')[1].startsWith('valid-'));
    expect(audited.length).toBeGreaterThan(0);
    expect(audited.filter(([, , f]) => !/^[A-Za-z][A-Za-z0-9]*$/.test(f.upstream ?? '')).map(([name]) => name)).toEqual([]);
    // A known gap carries upstream's answer, and that answer differs from ours.
    expect(cases.filter(([, , f]) => (f.knownGap === undefined) !== (f.upstreamWant === undefined)).map(([name]) => name)).toEqual([]);
  });

  // Each gap runs as an expected failure: visible in the report, and it fails once the gap is closed.
  it.fails.each(cases.filter(([, , f]) => f.knownGap !== undefined).map(([name, dir, f]) => [name, f.knownGap!, dir, f] as const))('known gap %s: %s', (_name, _why, dir, fixture) => {
    expect(run(dir, fixture)).toEqual(fixture.upstreamWant);
  });

  it.each(cases)('%s', (_name, dir, fixture) => {
    expect(run(dir, fixture)).toEqual(fixture.want ?? []);
  });
});

// One fixture through its validator: the shape, the kind with its feature gates, or the kind as generated
// (a CRD through every check of a CRD write: the generated rules plus the schema-aware ones of runtime/crd).
function run(dir: string, fixture: Fixture): FieldError[] {
  let v: Validate | undefined;
  if (fixture.shape) v = shapeValidator(fixture.shape, fixture.featureGates);
  else if (fixture.featureGates) v = Object.entries(validators).find(([shape]) => shape.toLowerCase() === dir)![1].createValidator(fixture.featureGates);
  else if (dir === 'customresourcedefinition') v = { validate: (o) => validateCRD(o, { objectRules: crdObjectRules }), validateUpdate: (o, old) => validateCRDUpdate(o, old, { objectRules: crdObjectRules }) };
  else v = byModule.get(dir);
  expect(v, `no validator for ${dir}`).toBeDefined();
  return fixture.old === undefined ? v!.validate(fixture.object) : v!.validateUpdate(fixture.object, fixture.old);
}
