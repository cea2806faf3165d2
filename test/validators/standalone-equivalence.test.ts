// The standalone validators of out/validators (generated ahead of time, linked at import) against
// the runtime compiler (runtime/schema/index.ts, the one CRDs use) on every fixture of
// test/fixtures/objects: the same errors, in the same order, equal to what the fixture expects;
// the same defaults and the same pruning; and every true answer of a CEL rule compiled to
// JavaScript (runtime/schema/cel-aot.ts) is the interpreter's answer too. Fixtures of an embedded shape (`shape:`) have no module
// of their own and are counted apart.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import * as validators from '../../out/validators/index.ts';
import { definitions } from '../../out/validators/definitions.ts';
import { featureGateDefaults } from '../../out/validators/feature-gates.ts';
import { compileSchemaCode } from '../../runtime/schema/index.ts';
import { builtinCelRuleEngine } from '../../runtime/cel/index.ts';
import type { CompiledValidator, FieldError } from '../../runtime/schema/types.ts';
import { linkValidator } from '../../runtime/schema/standalone.ts';
import type { CompiledCelFast } from '../../runtime/schema/cel-aot-runtime.ts';
import { withCRDSchemaErrors } from '../../runtime/crd/validate-crd.ts';

interface Fixture {
  shape?: string;
  featureGates?: Record<string, boolean>;
  object: unknown;
  old?: unknown;
  want?: FieldError[];
}

const fixturesDir = join(import.meta.dirname, '..', 'fixtures', 'objects');
// By module (the schema name: the kind, or EventsV1Event for the kind served in two groups).
const modules = new Map(Object.entries(validators).map(([shape, m]) => [shape.toLowerCase(), m]));
const shapeOf = new Map(Object.keys(validators).map((shape) => [shape.toLowerCase(), shape]));

const fixtures = readdirSync(fixturesDir).sort().flatMap((dir) =>
  readdirSync(join(fixturesDir, dir)).filter((f) => f.endsWith('.yaml')).sort()
    .map((f) => ({ name: `${dir}/${f}`, dir, fixture: parse(readFileSync(join(fixturesDir, dir, f), 'utf8')) as Fixture })),
);
const ofKinds = fixtures.filter((c) => !c.fixture.shape && modules.has(c.dir));

const runtimeCompiled = new Map<string, CompiledValidator>();
/** The same kind through the runtime compiler, with the fixture's gates. */
function runtimeValidator(dir: string, gates: Record<string, boolean> = {}): CompiledValidator {
  const key = `${dir}${JSON.stringify(gates)}`;
  let v = runtimeCompiled.get(key);
  if (!v) {
    const rc = modules.get(dir)!.resourceContext;
    v = compileSchemaCode({ $ref: `#/components/schemas/${shapeOf.get(dir)!}` }, {
      definitions, resource: rc, featureGates: { ...featureGateDefaults, ...gates }, cel: builtinCelRuleEngine, celErrorValue: 'value',
    });
    runtimeCompiled.set(key, v);
  }
  return v;
}

/** The generated validator, each true of a compiled CEL rule checked against the interpreter (it throws where they disagree). */
function standaloneValidator(dir: string, gates: Record<string, boolean> | undefined): CompiledValidator {
  return modules.get(dir)!.createValidator(gates, { verifyCompiledCel: true });
}

const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

describe('standalone validators and the runtime compiler agree on every fixture', () => {
  it('covers every kind with a module, and counts the fixtures of embedded shapes apart', () => {
    const kinds = new Set(ofKinds.map((c) => c.dir));
    for (const kind of modules.keys()) expect(kinds.has(kind), `fixtures of ${kind}`).toBe(true);
    expect(ofKinds.length + fixtures.filter((c) => c.fixture.shape).length).toBe(fixtures.length);
  });

  it.each(ofKinds.map((c) => [c.name, c] as const))('%s', (_name, { dir, fixture }) => {
    const standalone = standaloneValidator(dir, fixture.featureGates);
    const runtime = runtimeValidator(dir, fixture.featureGates);
    const errors = (v: CompiledValidator): FieldError[] =>
      fixture.old === undefined ? v.validate(clone(fixture.object)) : v.validateUpdate(clone(fixture.object), clone(fixture.old));
    const got = errors(standalone);
    expect(got).toEqual(errors(runtime));
    // a CRD fixture holds the answer of a CRD write: these object rules plus the schema-aware checks
    const answer = dir === 'customresourcedefinition' ? withCRDSchemaErrors(got, fixture.object, fixture.old) : got;
    expect(answer).toEqual(fixture.want ?? []);
    // defaulting and pruning: the same object afterwards, the same dropped paths
    const a = clone(fixture.object);
    const b = clone(fixture.object);
    standalone.applyDefaults(a);
    runtime.applyDefaults(b);
    expect(a).toEqual(b);
    expect(standalone.prune(a)).toEqual(runtime.prune(b));
    expect(a).toEqual(b);
  });

  it('answers most CEL evaluations of the valid fixtures by compiled rules', () => {
    let compiled = 0;
    let interpreted = 0;
    for (const { dir, fixture } of ofKinds.filter((c) => c.name.includes('/valid'))) {
      const m = modules.get(dir)!;
      // the compiled rules, counted: true is an answer, anything else goes to the interpreter
      const count = (fns: readonly CompiledCelFast[]): CompiledCelFast[] => fns.map((f) => (s: unknown, o: unknown): boolean => {
        let ok = false;
        try {
          ok = f(s, o) === true;
        } finally {
          if (ok) compiled++;
          else interpreted++;
        }
        return ok;
      });
      const v = linkValidator(m.validation, m.data, {
        resource: m.resourceContext, featureGates: { ...featureGateDefaults, ...fixture.featureGates }, cel: builtinCelRuleEngine,
        celErrorValue: 'value', compiledCel: count(m.compiledCel), verifyCompiledCel: true,
        shared: { ...m.shared, compiledCel: count(m.shared.compiledCel) },
      });
      const got = fixture.old === undefined ? v.validate(clone(fixture.object)) : v.validateUpdate(clone(fixture.object), clone(fixture.old));
      expect(got).toEqual(fixture.want ?? []);
    }
    expect(compiled).toBeGreaterThan(100);
    expect(compiled).toBeGreaterThan(4 * interpreted);
  });
});
