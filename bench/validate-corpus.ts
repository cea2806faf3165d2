// npm run bench:validate: `clusterspec validate` (full validation: pruning, defaults, every rule and
// CEL, positions for findings) over a generated corpus of 10,000 manifests in 1,000 multi-document
// YAML files, against a baseline that reads the same files, parses them with `yaml` and runs Ajv
// (structural checks only, from out/openapi/v3/all.json). Rounds are interleaved; medians printed.
// The comparison is per CPU second in one thread (-j 1); with --jobs N (default: the CLI's) it also
// runs -j N, whose worker threads start cold each round as in a CLI run, per wall second beside it.
// Options: --files N, --per-file N, --rounds N, --jobs N.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { runValidation } from '../runtime/validate/run.ts';
import { runValidationParallel, workersFor } from '../runtime/validate/parallel.ts';
import { fastManifests } from '../runtime/validate/fast-yaml.ts';
import { collectInputs } from '../runtime/validate/inputs.ts';
import * as validators from '../out/validators/index.ts';
import { validatorsModule } from '../generators/cli/commands/validate-validators.ts';
import { textReporter } from '../generators/cli/reporters/text.ts';
import { arg } from './cli-options.ts';

const root = join(import.meta.dirname, '..');
const FILES = Number(arg('files', '1000'));
const PER_FILE = Number(arg('per-file', '10'));
const ROUNDS = Number(arg('rounds', '3'));
const JOBS = Number(arg('jobs', String(availableParallelism())));

type Obj = Record<string, unknown>;

/**
 * Fixture objects of test/fixtures/objects as templates, by kind: the corpus takes the kinds in turn
 * (so each kind is an equal share, whatever its number of fixtures), valid ones, and an invalid one in 50.
 */
function templates(): { valid: Obj[][]; invalid: Obj[][] } {
  const dir = join(root, 'test', 'fixtures', 'objects');
  const valid: Obj[][] = [];
  const invalid: Obj[][] = [];
  for (const kind of readdirSync(dir).sort()) {
    const v: Obj[] = [];
    const iv: Obj[] = [];
    for (const name of readdirSync(join(dir, kind)).sort()) {
      if (name.includes('update')) continue;
      const fx = parse(readFileSync(join(dir, kind, name), 'utf8')) as { object?: Obj; old?: unknown };
      if (!fx.object || fx.old !== undefined || typeof fx.object.apiVersion !== 'string' || typeof fx.object.kind !== 'string') continue;
      (name.startsWith('valid-') ? v : iv).push(fx.object);
    }
    if (v.length && iv.length) {
      valid.push(v);
      invalid.push(iv);
    }
  }
  return { valid, invalid };
}

/** 1,000 files of 10 documents, in 10 folders; one document in 50 invalid. */
function writeCorpus(dir: string): number {
  const { valid, invalid } = templates();
  let n = 0;
  for (let f = 0; f < FILES; f++) {
    const sub = join(dir, `team-${f % 10}`);
    mkdirSync(sub, { recursive: true });
    const docs: string[] = [];
    for (let d = 0; d < PER_FILE; d++, n++) {
      const pool = (n % 50 === 49 ? invalid : valid)[n % valid.length];
      const obj = structuredClone(pool[Math.floor(n / valid.length) % pool.length]);
      const meta = (obj.metadata ?? {}) as Obj;
      // A CRD's name is <plural>.<group>: kept as it is.
      if (typeof meta.name === 'string' && obj.kind !== 'CustomResourceDefinition') meta.name = `${meta.name.slice(0, 50)}-${n}`;
      obj.metadata = meta;
      docs.push(stringify(obj, { lineWidth: 0 }));
    }
    writeFileSync(join(sub, `manifests-${f}.yaml`), docs.join('---\n'));
  }
  return n;
}

function ajvByKind(): Map<string, (o: unknown) => boolean> {
  const doc = JSON.parse(readFileSync(join(root, 'out', 'openapi', 'v3', 'all.json'), 'utf8')) as { components: { schemas: Record<string, Record<string, unknown>> } };
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: true });
  (ajvFormats as unknown as { default: (a: Ajv) => void }).default(ajv);
  for (const f of ['int32', 'int64', 'double', 'quantity']) ajv.addFormat(f, true);
  ajv.addSchema({ $id: 'api', components: doc.components } as Record<string, unknown>);
  const out = new Map<string, (o: unknown) => boolean>();
  for (const [name, schema] of Object.entries(doc.components.schemas)) {
    const gvk = schema['x-cluster-group-version-kind'] as Array<{ group: string; version: string; kind: string }> | undefined;
    if (!gvk || gvk[0].kind.endsWith('List')) continue;
    const fn = ajv.getSchema(`api#/components/schemas/${name}`);
    const apiVersion = gvk[0].group ? `${gvk[0].group}/${gvk[0].version}` : gvk[0].version;
    if (fn) out.set(`${apiVersion}|${gvk[0].kind}`, (o) => fn(o) as boolean);
  }
  return out;
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1)).flatMap((e) =>
    e.isDirectory() ? listFiles(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : []);
}

/** The baseline: read, parse with yaml, Ajv per document by apiVersion and kind (no Ajv: reading and parsing alone, the floor both sides share). */
function baseline(dir: string, ajv?: Map<string, (o: unknown) => boolean>): { resources: number; invalid: number; ms: number } {
  const started = performance.now();
  let resources = 0;
  let invalid = 0;
  for (const file of listFiles(dir)) {
    for (const d of parseAllDocuments(readFileSync(file, 'utf8'))) {
      const o = d.toJS() as Obj | null;
      if (!o) continue;
      resources++;
      if (!ajv) continue;
      const fn = ajv.get(`${String(o.apiVersion)}|${String(o.kind)}`);
      if (!fn || !fn(o)) invalid++;
    }
  }
  return { resources, invalid, ms: performance.now() - started };
}

const runOptions = (dir: string) => ({ validators, operands: [dir], crdDirs: [], strict: false, maxFileBytes: 32 * 1024 * 1024, readStdin: () => '' });

/** What `clusterspec validate -j 1 DIR` does, timed from reading the folder to the rendered report. */
function ours(dir: string): { resources: number; invalid: number; ms: number } {
  const started = performance.now();
  const report = runValidation(runOptions(dir));
  textReporter.render(report, { summary: true, toolVersion: 'bench' });
  return { resources: report.results.length, invalid: report.results.filter((r) => r.verdict !== 'valid').length, ms: performance.now() - started };
}

/** What `clusterspec validate -j JOBS DIR` does (workers started and stopped within), in wall milliseconds. */
async function oursParallel(dir: string): Promise<{ resources: number; threads: number; ms: number }> {
  const started = performance.now();
  const report = await runValidationParallel(runOptions(dir), { jobs: JOBS, validatorsModule });
  textReporter.render(report, { summary: true, toolVersion: 'bench' });
  return { resources: report.results.length, threads: report.threads ?? 1, ms: performance.now() - started };
}

/** Our reading alone: the files read and parsed by the validator's YAML reader (the scanner, then its fallbacks). */
function oursReading(dir: string): { ms: number } {
  const started = performance.now();
  for (const input of collectInputs([dir])) if (input.kind === 'file') fastManifests(readFileSync(input.abs, 'utf8'));
  return { ms: performance.now() - started };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** CPU milliseconds of this process: the rates are per CPU second, because the machines are shared (wall time counts other processes' turns). */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** `run` with the CPU milliseconds it took (`ms`; wall milliseconds as `wallMs`). */
function onCpu<T extends { ms: number }>(run: () => T): T & { wallMs: number } {
  const c = cpuMs();
  const r = run();
  return { ...r, wallMs: r.ms, ms: cpuMs() - c };
}

const dir = mkdtempSync(join(tmpdir(), 'clusterspec-corpus-'));
try {
  const total = writeCorpus(dir);
  const workers = workersFor(JOBS, collectInputs([dir]), { maxFileBytes: 32 * 1024 * 1024 });
  console.log(`on a machine with ${cpus().length} CPUs (available parallelism ${availableParallelism()}); -j 1 in one thread, and -j ${JOBS}: this thread and up to ${workers} worker${workers === 1 ? '' : 's'} (by the corpus's size)`);
  console.log(`corpus: ${total} manifests in ${FILES} files (${PER_FILE} documents each) under ${dir}`);
  const ajv = ajvByKind();
  // Warm both paths once (module loading, validator compilation) on a tenth of the corpus before timing.
  ours(join(dir, 'team-0'));
  baseline(join(dir, 'team-0'), ajv);
  const oursRates: number[] = [];
  const baseRates: number[] = [];
  const oursWallRates: number[] = [];
  const baseWallRates: number[] = [];
  const parallelWallRates: number[] = [];
  const parseShares: number[] = [];
  const baseParseShares: number[] = [];
  let threads = 1;
  for (let round = 0; round < ROUNDS; round++) {
    const b = onCpu(() => baseline(dir, ajv));
    const o = onCpu(() => ours(dir));
    const r = onCpu(() => oursReading(dir));
    const p = onCpu(() => baseline(dir));
    baseRates.push(b.resources / (b.ms / 1000));
    oursRates.push(o.resources / (o.ms / 1000));
    baseWallRates.push(b.resources / (b.wallMs / 1000));
    oursWallRates.push(o.resources / (o.wallMs / 1000));
    parseShares.push(r.ms / o.ms);
    baseParseShares.push(p.ms / b.ms);
    let line = `round ${round + 1} (CPU ms, wall ms): clusterspec validate -j 1 ${o.resources} resources (${o.invalid} invalid) in ${o.ms.toFixed(0)} (${o.wallMs.toFixed(0)}); yaml+Ajv ${b.resources} resources (${b.invalid} invalid by Ajv) in ${b.ms.toFixed(0)} (${b.wallMs.toFixed(0)}); our reading alone ${r.ms.toFixed(0)} (${r.wallMs.toFixed(0)}); yaml's alone ${p.ms.toFixed(0)} (${p.wallMs.toFixed(0)})`;
    if (JOBS > 1) {
      const j = await oursParallel(dir);
      threads = j.threads;
      parallelWallRates.push(j.resources / (j.ms / 1000));
      line += `; -j ${JOBS} in ${j.ms.toFixed(0)} wall on ${j.threads} thread${j.threads === 1 ? '' : 's'}`;
    }
    console.log(line);
  }
  const ourRate = median(oursRates);
  const baseRate = median(baseRates);
  console.log(`clusterspec validate -j 1 (full validation): ${ourRate.toFixed(0)} resources per CPU second`);
  console.log(`baseline yaml + Ajv (structural only):       ${baseRate.toFixed(0)} resources per CPU second`);
  console.log(`ratio ours -j 1 / baseline: ${(ourRate / baseRate).toFixed(2)} (target >= 1.00)`);
  if (JOBS > 1) {
    const baseWall = median(baseWallRates);
    console.log(`per wall second: -j 1 ${median(oursWallRates).toFixed(0)} (ratio ${(median(oursWallRates) / baseWall).toFixed(2)}), -j ${JOBS} ${median(parallelWallRates).toFixed(0)} (ratio ${(median(parallelWallRates) / baseWall).toFixed(2)}; ${threads} thread${threads === 1 ? '' : 's'} validated in the last round), baseline ${baseWall.toFixed(0)}`);
    console.log(`  (-j ${JOBS}'s workers start cold each round, as in a CLI run, beside a warm main thread; wall time counts other processes' turns on a shared machine)`);
  }
  console.log(`reading and parsing YAML is ${(median(parseShares) * 100).toFixed(0)}% of our time (our reader; the rest: pruning, defaults, every rule and CEL, positions of findings), and ${(median(baseParseShares) * 100).toFixed(0)}% of the baseline's (yaml's parser)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
