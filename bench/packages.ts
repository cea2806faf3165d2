// `npm run bench:packages`: what a consumer of @clusterspec/artifacts waits for, against baselines run
// side by side in the same run.
//
// Install: `npm install --offline <artifacts tarball>` into an empty project, beside the same of a one-file
//   package's tarball. Neither has a dependency (the artifacts' chunks bundle RE2 and CEL), so no
//   registry is asked.
// Cold import: a whole `node` process that imports one kind's validator (and one that also validates
//   an object, which is when the validator is ready), against `node -e ''`.
//
// Env: BENCH_ROUNDS (default 5 installs, 4x that many process starts), BENCH_KIND (default storage.cluster.io/v1/StorageClass).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { buildAndPack, removeAll, tarballs } from '../generators/packages/pack.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const KIND = process.env.BENCH_KIND ?? 'storage.cluster.io/v1/StorageClass';

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ms = (x: number): string => `${x.toFixed(0)} ms`;

/** Milliseconds of one `npm install` of the given specs into a new empty project; the project is kept for imports. */
function timedInstall(specs: string[], flags: string[]): { ms: number; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'clusterspec-bench-install-'));
  writeFileSync(join(dir, 'package.json'), '{ "name": "bench-consumer", "private": true, "type": "module" }\n');
  const started = performance.now();
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...flags, ...specs], { cwd: dir, stdio: 'ignore' });
  return { ms: performance.now() - started, dir };
}

/** A package of one file, packed: the smallest thing npm installs. */
function oneFilePackage(into: string): string {
  const dir = join(into, 'one-file');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "name": "one-file", "version": "1.0.0", "type": "module", "main": "index.js" }\n');
  writeFileSync(join(dir, 'index.js'), 'export const one = 1;\n');
  execFileSync('npm', ['pack', dir, '--pack-destination', into, '--loglevel=error'], { stdio: 'ignore' });
  return join(into, 'one-file-1.0.0.tgz');
}

function timedProcess(cwd: string, args: string[]): number {
  const started = performance.now();
  const r = spawnSync(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const took = performance.now() - started;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed: ${r.stderr}`);
  return took;
}

async function main(): Promise<void> {
  console.log('building and packing @clusterspec/types and @clusterspec/artifacts ...');
  const packed = await buildAndPack(['types', 'artifacts']);
  const artifacts = tarballs(packed).find((t) => t.includes('artifacts'))!;
  const oneFile = oneFilePackage(packed);
  const projects: string[] = [];

  const modes = [{ name: 'offline (--offline)', flags: ['--offline'] }];
  console.log(`\ninstall into an empty project, median of ${ROUNDS} (interleaved):`);
  for (const mode of modes) {
    const ours: number[] = [];
    const base: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const a = timedInstall([artifacts], mode.flags);
      const b = timedInstall([oneFile], mode.flags);
      ours.push(a.ms);
      base.push(b.ms);
      projects.push(a.dir, b.dir);
    }
    const [o, b] = [median(ours), median(base)];
    console.log(`  ${mode.name}: artifacts ${ms(o)}, one-file package ${ms(b)}: ratio ${(o / b).toFixed(2)}x, +${ms(o - b)} (target: under 10 s)`);
  }

  const consumer = projects[projects.length - 2];
  const importOnly = `import('@clusterspec/artifacts/${KIND}')`;
  const importAndValidate = `import('@clusterspec/artifacts/${KIND}').then((m) => { if (!Array.isArray(m.validate({}))) process.exit(1); })`;
  const runs = { baseline: [] as number[], importOnly: [] as number[], importAndValidate: [] as number[] };
  for (let i = 0; i < ROUNDS * 4; i++) {
    runs.baseline.push(timedProcess(consumer, ['-e', '']));
    runs.importOnly.push(timedProcess(consumer, ['-e', importOnly]));
    runs.importAndValidate.push(timedProcess(consumer, ['-e', importAndValidate]));
  }
  const base = median(runs.baseline);
  console.log(`\ncold start of a whole node process, median of ${ROUNDS * 4} (interleaved):`);
  console.log(`  node -e '': ${ms(base)}`);
  for (const [name, label] of [['importOnly', `import ${KIND}`], ['importAndValidate', `import ${KIND} and validate one object`]] as const) {
    const m = median(runs[name]);
    console.log(`  ${label}: ${ms(m)}: +${ms(m - base)} above the baseline, ${(m / base).toFixed(2)}x (target: under +50 ms)`);
  }
  removeAll(packed, ...projects);
}

await main();
