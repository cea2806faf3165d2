// Walks test/fixtures/objects/<kind>/*.yaml: each fixture carries an object (and `old` for an
// update) and the field errors the generated validators must return, in upstream's wording.
// `valid-*` fixtures want no error. A fixture with `shape:` validates an embedded shape (Volume).
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import * as validators from '../../out/validators/index.ts';
import { definitions } from '../../out/validators/definitions.ts';
import { compileSchema } from '../../runtime/schema/index.ts';
import { builtinCelRuleEngine } from '../../runtime/cel/index.ts';
import { featureGateDefaults } from '../../out/validators/feature-gates.ts';
import type { CompiledValidator, FieldError } from '../../runtime/schema/types.ts';

const fixturesDir = join(import.meta.dirname, '..', 'fixtures', 'objects');

interface Fixture {
  shape?: string;
  featureGates?: Record<string, boolean>;
  object: unknown;
  old?: unknown;
  want?: FieldError[];
}

type Validate = Pick<CompiledValidator, 'validate' | 'validateUpdate'>;
const byModule = new Map<string, Validate>(
  Object.values(validators).map((v) => [v.resourceContext.kind.toLowerCase(), v]),
);
const shapeValidators = new Map<string, CompiledValidator>();
function shapeValidator(shape: string, gates: Record<string, boolean> = {}): CompiledValidator {
  const key = `${shape}${JSON.stringify(gates)}`;
  let v = shapeValidators.get(key);
  if (!v) {
    v = compileSchema({ $ref: `#/components/schemas/${shape}` }, { definitions, featureGates: { ...featureGateDefaults, ...gates }, cel: builtinCelRuleEngine, celErrorValue: 'value' });
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

  it.each(cases)('%s', (_name, dir, fixture) => {
    let v: Validate | undefined;
    if (fixture.shape) v = shapeValidator(fixture.shape, fixture.featureGates);
    else if (fixture.featureGates) v = Object.values(validators).find((m) => m.resourceContext.kind.toLowerCase() === dir)!.createValidator(fixture.featureGates);
    else v = byModule.get(dir);
    expect(v, `no validator for ${dir}`).toBeDefined();
    const got = fixture.old === undefined ? v!.validate(fixture.object) : v!.validateUpdate(fixture.object, fixture.old);
    expect(got).toEqual(fixture.want ?? []);
  });
});
