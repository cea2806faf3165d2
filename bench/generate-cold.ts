// `npm run bench:generate`: `npm run generate` in a new process, every artifact kind, against
// openapi-typescript producing types alone from our combined OpenAPI document, side by side in one run
// (rounds alternate). Three of our sides: with no cache (--no-cache, every generator runs); with
// inputs unchanged since the last run (the cache of generators/generation-cache.ts: what a build
// pipeline's second run sees; out/ is still written); and after a description in one spec file was
// edited (every generator runs, the format worker's outputs for unchanged inputs come from
// generators/format-cache.ts: what a developer's run after an edit sees). Target (issue 12): ours no slower. Wall time
// and the CPU of the child (user + system, from /proc) are both printed: the CPU figure is the
// steadier one on a shared machine. The start-up of node and of node with tsx is printed for
// reference (every one of our runs pays the second).
//
//   npm run bench:generate -- [--rounds 5]

import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { waitedChildrenCpuUs } from '../test/e2e/process-cpu.ts';
import { arg } from './cli-options.ts';

const ROOT = resolve(import.meta.dirname, '..');
const ROUNDS = Number(arg('rounds', '5'));
const scratch = mkdtempSync(join(tmpdir(), 'clusterspec-bench-generate-'));
// our sides generate a copy of spec/ into its own out/ (its cache in its own node_modules/.cache), so
// the repository is neither read as output nor written
const project = join(scratch, 'project');
cpSync(join(ROOT, 'spec'), join(project, 'spec'), { recursive: true });
const emptyScript = join(scratch, 'empty.ts');
writeFileSync(emptyScript, 'export {};\n');

const CACHE_HIT = 'inputs unchanged since the last run';
const cli = join(ROOT, 'generators/cli.ts');

interface Side {
  name: string;
  args: string[];
  /** Run before each sample, unmeasured. */
  prepare?: () => void;
  /** Fails the run when the output shows the side did not do what it names. */
  expect?: (stdout: string) => boolean;
}

const noCache: Side = { name: 'clusterspec generate, all artifact kinds, no cache', args: ['--import', 'tsx', cli, '--root', project, '--no-cache'], expect: (out) => !out.includes(CACHE_HIT) };
const cached: Side = { name: 'clusterspec generate, all kinds, inputs unchanged (cache)', args: ['--import', 'tsx', cli, '--root', project], expect: (out) => out.includes(CACHE_HIT) };
const editedFile = join(project, 'spec/resources/configmap.yaml');
const DESCRIPTION = /description: Configuration data consumed by Pods[^\n]*/;
let edits = 0;
const edited: Side = {
  name: 'clusterspec generate, all kinds, one description edited',
  args: cached.args,
  prepare: () => {
    const text = readFileSync(editedFile, 'utf8');
    if (!DESCRIPTION.test(text)) throw new Error(`the edited description is not in ${editedFile}: ${DESCRIPTION.source}`);
    writeFileSync(editedFile, text.replace(DESCRIPTION, `description: Configuration data consumed by Pods (edit ${++edits}).`));
  },
  expect: (out) => !out.includes(CACHE_HIT),
};
const theirs: Side = { name: 'openapi-typescript (types only, out/openapi/v3/all.json)', args: [join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), join(ROOT, 'out/openapi/v3/all.json'), '-o', join(scratch, 'types.ts')] };
// the edited side runs after the cached one: its run is the last generation the next cached run finds
const sides = [noCache, cached, edited, theirs];
const startups: Side[] = [
  { name: 'start-up: node, an empty script', args: ['-e', '0'] },
  { name: 'start-up: node --import tsx, an empty .ts', args: ['--import', 'tsx', emptyScript] },
];

interface Sample {
  wallMs: number;
  cpuMs: number;
}

function runOnce(side: Side): Sample {
  side.prepare?.();
  const cpuBefore = waitedChildrenCpuUs() ?? 0;
  const start = performance.now();
  const r = spawnSync(process.execPath, side.args, { cwd: ROOT, encoding: 'utf8' });
  const wallMs = performance.now() - start;
  if (r.status !== 0) throw new Error(`${side.name} exited ${r.status}: ${r.stderr}`);
  if (side.expect && !side.expect(r.stdout)) throw new Error(`${side.name}: unexpected output ${r.stdout}`);
  return { wallMs, cpuMs: ((waitedChildrenCpuUs() ?? 0) - cpuBefore) / 1000 };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const medians = (s: Sample[]): { wall: number; cpu: number } => ({ wall: median(s.map((x) => x.wallMs)), cpu: median(s.map((x) => x.cpuMs)) });
const row = (name: string, m: { wall: number; cpu: number }): string => `  ${name.padEnd(62)} wall ${m.wall.toFixed(0).padStart(6)} ms   CPU ${m.cpu.toFixed(0).padStart(6)} ms`;
const ratio = (a: { wall: number; cpu: number }, b: { wall: number; cpu: number }): string => `wall ${(a.wall / b.wall).toFixed(2)}x, CPU ${(a.cpu / b.cpu).toFixed(2)}x`;

try {
  // warm the file cache, unrecorded; the first plain run fills our generation cache
  runOnce(theirs);
  runOnce({ ...cached, expect: undefined });
  runOnce(edited);
  const samples = sides.map(() => [] as Sample[]);
  const startupSamples = startups.map(() => [] as Sample[]);
  for (let round = 0; round < ROUNDS; round++) {
    sides.forEach((side, i) => samples[i].push(runOnce(side)));
    startups.forEach((side, i) => startupSamples[i].push(runOnce(side)));
  }
  const [ours, oursCached, oursEdited, openapiTs] = samples.map(medians);
  console.log(`npm run generate in a new process against openapi-typescript, ${ROUNDS} alternating rounds, medians`);
  sides.forEach((side, i) => console.log(row(side.name, [ours, oursCached, oursEdited, openapiTs][i])));
  startups.forEach((side, i) => console.log(row(side.name, medians(startupSamples[i]))));
  console.log(`  ratio ours (no cache)/openapi-typescript:   ${ratio(ours, openapiTs)} (target <= 1.00)`);
  console.log(`  ratio ours (cache hit)/openapi-typescript:  ${ratio(oursCached, openapiTs)} (target <= 1.00)`);
  console.log(`  ratio ours (one edit)/openapi-typescript:   ${ratio(oursEdited, openapiTs)}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
