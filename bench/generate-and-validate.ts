// npm run bench: full generation time, and our validators against Ajv compiled from the same
// generated schemas, on the same objects, side by side in one run; for valid objects also against
// JSON.parse of the same objects' text (the target: full validation costs no more than parsing).
// Prints medians and ratios. `npm run bench -- --validators-only` skips the generation timing;
// `--round-ms N` sets the CPU milliseconds of each measurement (200).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';
import { parse } from 'yaml';
import { generate } from '../generators/index.ts';
import * as validators from '../out/validators/index.ts';
import { definitions } from '../out/validators/definitions.ts';
import { featureGateDefaults } from '../out/validators/feature-gates.ts';
import { compileSchemaCode } from '../runtime/schema/index.ts';
import { builtinCelRuleEngine } from '../runtime/cel/index.ts';
import type { Schema } from '../runtime/schema/types.ts';
import { arg } from './cli-options.ts';

/** CPU milliseconds per measurement (`--round-ms`). */
const ROUND_MS = Number(arg('round-ms', '200'));

const root = join(import.meta.dirname, '..');
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function generationTime(): Promise<void> {
  const cold: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'generators', 'cli.ts'), '--check'], { cwd: root, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(run.stderr);
    cold.push(performance.now() - t);
  }
  const warm: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await generate(root);
    warm.push(performance.now() - t);
  }
  console.log(`full generation, new process (npm run generate -- --check): median ${median(cold).toFixed(0)} ms of ${cold.length}`);
  console.log(`full generation, warm in-process:                           median ${median(warm).toFixed(0)} ms of ${warm.length}`);
}

interface Corpus {
  kind: string;
  valid: unknown[];
  invalid: unknown[];
}

/** Realistic objects: the fixtures of test/fixtures/objects (create cases only). */
function corpora(): Corpus[] {
  const dir = join(root, 'test', 'fixtures', 'objects');
  return readdirSync(dir).sort().flatMap((kind) => {
    const files = readdirSync(join(dir, kind)).filter((f) => f.endsWith('.yaml'));
    const load = (prefix: string) => files.filter((f) => f.startsWith(prefix)).map((f) => parse(readFileSync(join(dir, kind, f), 'utf8')) as { object: unknown; old?: unknown; shape?: string })
      .filter((x) => x.old === undefined && !x.shape).map((x) => x.object);
    const valid = load('valid');
    const invalid = load('invalid');
    return valid.length ? [{ kind, valid, invalid }] : [];
  });
}

/** Ajv over the generated OpenAPI 3.0 component schemas (the same shapes). */
function ajvValidators(): Map<string, (o: unknown) => boolean> {
  const doc = JSON.parse(readFileSync(join(root, 'out', 'openapi', 'v3', 'all.json'), 'utf8')) as { components: { schemas: Record<string, Record<string, unknown>> } };
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: true });
  (ajvFormats as unknown as { default: (a: Ajv) => void }).default(ajv);
  for (const f of ['int32', 'int64', 'double', 'quantity']) ajv.addFormat(f, true);
  ajv.addSchema({ $id: 'api', components: doc.components } as Record<string, unknown>);
  const out = new Map<string, (o: unknown) => boolean>();
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    const gvk = schema['x-cluster-group-version-kind'] as Array<{ kind: string }> | undefined;
    if (!gvk || gvk[0].kind.endsWith('List')) continue;
    const fn = ajv.getSchema(`api#/components/schemas/${name}`);
    // by schema name: a kind served in two groups has a schema each (Event, EventsV1Event)
    if (fn) out.set(name.slice(name.lastIndexOf('.') + 1).toLowerCase(), (o) => fn(o) as boolean);
  }
  return out;
}

/** The same definitions without rules, CEL and the x-cluster-* extensions: the structural checks only. */
function structuralOnly(): Map<string, (o: unknown) => unknown> {
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (!node || typeof node !== 'object') return node;
    return Object.fromEntries(Object.entries(node).filter(([k]) => !k.startsWith('x-cluster-')).map(([k, v]) => [k, k === 'properties' ? Object.fromEntries(Object.entries(v as object).map(([p, s]) => [p, strip(s)])) : strip(v)]));
  };
  const defs = strip(definitions) as Record<string, Schema>;
  return new Map(Object.keys(validators).map((shape) => {
    const c = compileSchemaCode({ $ref: `#/components/schemas/${shape}` }, { definitions: defs });
    return [shape.toLowerCase(), (o: unknown) => c.validate(o)] as const;
  }));
}

/** The same kinds compiled at run time by the schema compiler (what out/validators did before they were generated ahead of time). */
function runtimeCompiled(): Map<string, (o: unknown) => unknown> {
  return new Map(Object.entries(validators).map(([shape, v]) => {
    const c = compileSchemaCode({ $ref: `#/components/schemas/${shape}` }, {
      definitions, resource: v.resourceContext, featureGates: featureGateDefaults, cel: builtinCelRuleEngine, celErrorValue: 'value',
    });
    return [shape.toLowerCase(), (o: unknown) => c.validate(o)] as const;
  }));
}

/** CPU milliseconds of this process (user and system). */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * Objects per CPU second, over at least `ms` of this process's CPU time: CPU time, not wall time,
 * because the machines this runs on are shared (a wall clock counts the other processes' turns).
 */
function throughput(fn: (o: unknown) => unknown, objects: unknown[], ms = 400): number {
  let n = 0;
  const start = cpuMs();
  let now = start;
  while (now - start < ms) {
    for (let k = 0; k < 10; k++) for (const o of objects) fn(o);
    n += 10 * objects.length;
    now = cpuMs();
  }
  return (n / (now - start)) * 1000;
}

/** Microseconds per object of `fn` over the objects, from a throughput. */
const usPer = (objectsPerSecond: number): number => 1e6 / objectsPerSecond;

function validatorThroughput(): void {
  const ajv = ajvValidators();
  const ours = new Map(Object.entries(validators).map(([shape, v]) => [shape.toLowerCase(), v]));
  const structural = structuralOnly();
  const runtime = runtimeCompiled();
  console.log('\nvalidator throughput (objects per CPU second of this process, median of 5 alternating rounds, allErrors on both)');
  console.log('  structural = our compiler on the same schemas without rules and CEL (what Ajv checks)');
  console.log('  full = the generated validators: structure, metadata, rules and CEL, with upstream-shaped errors');
  console.log('  runtime = the same full validation compiled at run time by the schema compiler (the validators before out/ held their code)');
  console.log('  parse = JSON.parse of the same objects\' text (valid corpora): full us / parse us is the last column, target <= 1');
  console.log('kind                              corpus     structural         ajv   ratio        full   ratio     runtime   ratio   full us  parse us  full/parse');
  const structuralRatios: number[] = [];
  const fullRatios: number[] = [];
  const runtimeRatios: number[] = [];
  const parseRatios: number[] = [];
  for (const c of corpora()) {
    const a = ajv.get(c.kind);
    const o = ours.get(c.kind);
    const st = structural.get(c.kind);
    const rt = runtime.get(c.kind);
    if (!a || !o || !st || !rt) continue;
    for (const [label, objects] of [['valid', c.valid], ['invalid', c.invalid]] as const) {
      if (!objects.length) continue;
      const stRuns: number[] = [];
      const fullRuns: number[] = [];
      const ajvRuns: number[] = [];
      const rtRuns: number[] = [];
      const parseRuns: number[] = [];
      const texts = objects.map((x) => JSON.stringify(x));
      const textOf = new Map(objects.map((x, i) => [x, texts[i]]));
      for (let i = 0; i < 5; i++) {
        stRuns.push(throughput(st, objects, ROUND_MS));
        ajvRuns.push(throughput(a, objects, ROUND_MS));
        fullRuns.push(throughput((x) => o.validate(x), objects, ROUND_MS));
        rtRuns.push(throughput(rt, objects, ROUND_MS));
        if (label === 'valid') parseRuns.push(throughput((x) => JSON.parse(textOf.get(x)!), objects, ROUND_MS));
      }
      const sr = median(stRuns) / median(ajvRuns);
      const fr = median(fullRuns) / median(ajvRuns);
      structuralRatios.push(sr);
      fullRatios.push(fr);
      const rr = median(rtRuns) / median(ajvRuns);
      runtimeRatios.push(rr);
      let vsParse = '';
      if (parseRuns.length) {
        const fullUs = usPer(median(fullRuns));
        const parseUs = usPer(median(parseRuns));
        parseRatios.push(fullUs / parseUs);
        vsParse = `${fullUs.toFixed(2).padStart(10)}${parseUs.toFixed(2).padStart(10)}${(fullUs / parseUs).toFixed(2).padStart(12)}`;
      }
      console.log(`${c.kind.padEnd(34)}${label.padEnd(8)}${median(stRuns).toFixed(0).padStart(12)}${median(ajvRuns).toFixed(0).padStart(12)}${sr.toFixed(2).padStart(8)}${median(fullRuns).toFixed(0).padStart(12)}${fr.toFixed(2).padStart(8)}${median(rtRuns).toFixed(0).padStart(12)}${rr.toFixed(2).padStart(8)}${vsParse}`);
    }
  }
  const geo = (xs: number[]) => Math.exp(xs.reduce((s, r) => s + Math.log(r), 0) / xs.length).toFixed(2);
  console.log(`geometric mean ratio to Ajv: structural ${geo(structuralRatios)}, full ${geo(fullRatios)}, runtime-compiled ${geo(runtimeRatios)}`);
  console.log(`valid objects, full validation / JSON.parse of the text: geometric mean ${geo(parseRatios)}, worst ${Math.max(...parseRatios).toFixed(2)} (target <= 1 for every kind)`);
}

/**
 * Time to the first answer, every kind: the generated validators link and build the closures a
 * valid object reaches (CEL rules compiled on their first evaluation); the runtime compiler
 * compiles the whole schema first. Standalone first, so neither profits from the other's warm-up.
 */
function firstValidation(): void {
  const firsts = corpora().map((c) => [c.kind, c.valid[0]] as const);
  const modules = new Map(Object.entries(validators).map(([shape, v]) => [shape.toLowerCase(), v]));
  const shapes = new Map(Object.keys(validators).map((shape) => [shape.toLowerCase(), shape]));
  let t = performance.now();
  for (const [kind, obj] of firsts) modules.get(kind)?.createValidator().validate(obj);
  const standalone = performance.now() - t;
  t = performance.now();
  for (const [kind, obj] of firsts) {
    const m = modules.get(kind);
    if (!m) continue;
    compileSchemaCode({ $ref: `#/components/schemas/${shapes.get(kind)!}` }, {
      definitions, resource: m.resourceContext, featureGates: featureGateDefaults, cel: builtinCelRuleEngine, celErrorValue: 'value',
    }).validate(obj);
  }
  const runtime = performance.now() - t;
  console.log(`\nfirst validation of one valid object per kind (${firsts.length} kinds): generated ${standalone.toFixed(0)} ms, compiled at run time ${runtime.toFixed(0)} ms`);
}

if (!process.argv.includes('--validators-only')) await generationTime();
firstValidation();
validatorThroughput();
