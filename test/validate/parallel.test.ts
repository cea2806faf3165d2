// A validation run spread over worker threads (runtime/validate/parallel.ts) gives the same report,
// byte for byte in every format, as the run in one thread: on a corpus of valid and invalid objects,
// broken YAML, unknown kinds, Lists, custom resources (--crds) and updates (--old), with every chunk
// validated by a worker; a worker that cannot start leaves its work to the main thread; small runs
// start no worker.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { validators, validatorsModule } from '../../generators/cli/commands/validate-validators.ts';
import { reporters } from '../../generators/cli/reporters/index.ts';
import { chunksOf, runValidationParallel, workersFor, type ParallelOptions } from '../../runtime/validate/parallel.ts';
import type { RunReport } from '../../runtime/validate/findings.ts';
import type { Input } from '../../runtime/validate/inputs.ts';
import type { RunOptions } from '../../runtime/validate/run.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'clusterspec-parallel-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Every object fixture (valid and invalid) as documents of files in folders, with the CLI's and bad-input fixtures beside them. */
function writeCorpus(dir: string): void {
  const objects = join(ROOT, 'test', 'fixtures', 'objects');
  let n = 0;
  for (const kind of readdirSync(objects).sort()) {
    const docs: string[] = [];
    for (const name of readdirSync(join(objects, kind)).sort()) {
      const fx = parse(readFileSync(join(objects, kind, name), 'utf8')) as { object?: unknown };
      if (fx.object) docs.push(stringify(fx.object, { lineWidth: 0 }));
    }
    // Each kind's documents over a few files, in a folder per kind.
    mkdirSync(join(dir, kind));
    for (let i = 0; i < docs.length; i += 4) writeFileSync(join(dir, kind, `part-${n++}.yaml`), docs.slice(i, i + 4).join('---\n'));
  }
  cpSync(join(ROOT, 'test', 'fixtures', 'cli'), join(dir, 'cli'), { recursive: true });
  cpSync(join(ROOT, 'test', 'fixtures', 'validate', 'broken-multidoc', 'manifests.yaml'), join(dir, 'broken.yaml'));
  cpSync(join(ROOT, 'test', 'fixtures', 'validate', 'list-and-unknown', 'list.json'), join(dir, 'list.json'));
  cpSync(join(ROOT, 'test', 'fixtures', 'validate', 'non-kubernetes', 'input'), join(dir, 'non-kubernetes'), { recursive: true });
  // Over the run's --max-file-size (64 KiB).
  writeFileSync(join(dir, 'large.yaml'), stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'large', namespace: 'default' }, data: { big: 'x'.repeat(70_000) } }));
}

const corpus = join(tmp, 'corpus');
mkdirSync(corpus);
writeCorpus(corpus);

const baseOptions: RunOptions = {
  validators,
  operands: ['corpus'],
  crdDirs: ['corpus/cli/crds'],
  oldFile: 'corpus/cli/widget-old.yaml',
  strict: false,
  maxFileBytes: 64 * 1024,
  readStdin: () => '',
  cwd: tmp,
};

/** Every format of a report; the JSON one with --summary but without its timing. */
function rendered(report: RunReport): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [format, reporter] of Object.entries(reporters)) {
    const r = reporter.render({ ...report, durationMs: 0 }, { summary: true, toolVersion: 'test' });
    out[format] = r.out + (r.diagnostics ?? '');
  }
  return out;
}

/** Chunks of a few files, and a worker for any work: every chunk crosses a thread. */
const everyChunkToWorkers: Omit<ParallelOptions, 'jobs'> = { validatorsModule, minBytesPerWorker: 1, chunkBytes: 2048, workersOnly: true };

describe('validation spread over worker threads', () => {
  const alone = runValidationParallel(baseOptions, { jobs: 1, validatorsModule });

  it('the corpus has every kind of result, read in one thread', async () => {
    const report = await alone;
    expect(report.threads).toBe(1);
    const verdicts = new Set(report.results.map((r) => r.verdict));
    expect([...verdicts].sort()).toEqual(['error', 'invalid', 'valid']);
    const reasons = new Set(report.results.flatMap((r) => r.findings.map((f) => f.reason)));
    for (const reason of ['YAMLSyntaxError', 'UnknownKind', 'UnknownField', 'FieldValueInvalid', 'FileTooLarge']) expect(reasons, reason).toContain(reason);
    expect(report.results.length).toBeGreaterThan(300);
  });

  it.each([2, 3])('-j %i: the same report in every format, each chunk validated by a worker', async (jobs) => {
    const spread = await runValidationParallel(baseOptions, { jobs, ...everyChunkToWorkers });
    expect(spread.threads).toBeGreaterThanOrEqual(1);
    expect(spread.threads).toBeLessThanOrEqual(jobs - 1);
    expect(rendered(spread)).toEqual(rendered(await alone));
    expect(spread.internalError).toBe(false);
  }, 60_000);

  it('with --strict, and this thread validating beside the workers: the same report', async () => {
    const strict = { ...baseOptions, strict: true };
    const [one, three] = await Promise.all([
      runValidationParallel(strict, { jobs: 1, validatorsModule }),
      runValidationParallel(strict, { jobs: 3, validatorsModule, minBytesPerWorker: 1, chunkBytes: 2048 }),
    ]);
    expect(rendered(three)).toEqual(rendered(one));
  }, 60_000);

  it('under tsx\'s tsImport, as bin/clusterspec.mjs loads the CLI from the sources, the workers load and validate too', () => {
    // Module URLs there carry a loader namespace (?tsx-namespace=) that a worker must not be handed.
    const script = `
      import { tsImport } from 'tsx/esm/api';
      const { runValidationParallel } = await tsImport(${JSON.stringify(join(ROOT, 'runtime/validate/parallel.ts'))}, import.meta.url);
      const { validators, validatorsModule } = await tsImport(${JSON.stringify(join(ROOT, 'generators/cli/commands/validate-validators.ts'))}, import.meta.url);
      const options = { validators, operands: ['corpus'], crdDirs: [], strict: false, maxFileBytes: 1e9, readStdin: () => '', cwd: ${JSON.stringify(tmp)} };
      const report = await runValidationParallel(options, { jobs: 3, validatorsModule, minBytesPerWorker: 1, chunkBytes: 2048, workersOnly: true });
      console.log(JSON.stringify({ threads: report.threads, results: report.results.length }));
    `;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 50_000 });
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout) as { threads: number; results: number };
    // Two workers took chunks (this thread took none): had they failed, this thread would have validated all (1).
    expect(out.threads).toBe(2);
    expect(out.results).toBeGreaterThan(300);
  }, 60_000);

  it('workers that cannot load the validators leave every chunk to this thread: the same report', async () => {
    const broken = { url: new URL('./no-such-module.ts', import.meta.url).href, exportName: 'validators' };
    const report = await runValidationParallel(baseOptions, { ...everyChunkToWorkers, jobs: 3, validatorsModule: broken });
    expect(report.threads).toBe(1);
    expect(rendered(report)).toEqual(rendered(await alone));
  }, 60_000);
});

describe('when workers start', () => {
  const file = (size: number): Input => ({ kind: 'file', path: 'f.yaml', abs: '/f.yaml', size });
  const opts = { maxFileBytes: 32 * 1024 * 1024 };
  const MB = 1024 * 1024;

  it.each([
    { name: 'one thread asked', jobs: 1, inputs: [file(100 * MB)], workers: 0 },
    { name: 'too little work for one', jobs: 4, inputs: [file(MB), file(2 * MB)], workers: 0 },
    { name: 'work for two, four threads asked', jobs: 4, inputs: [file(5 * MB), file(4 * MB)], workers: 2 },
    { name: 'no more than asked', jobs: 2, inputs: [file(30 * MB)], workers: 1 },
    { name: 'files over the size limit count for nothing', jobs: 4, inputs: [file(40 * MB)], workers: 0 },
    { name: 'standard input is read in this thread', jobs: 4, inputs: [file(30 * MB), { kind: 'stdin', path: '<stdin>' } as Input], workers: 0 },
  ])('$name: $workers', ({ jobs, inputs, workers }) => {
    expect(workersFor(jobs, inputs, opts)).toBe(workers);
  });

  it('chunks keep the order of the inputs and cut after CHUNK_BYTES', () => {
    const inputs = [file(10), file(200), file(50), file(300), file(1)];
    expect(chunksOf(inputs, 250).map((c) => c.map((i) => (i as { size: number }).size))).toEqual([[10, 200, 50], [300], [1]]);
  });
});
