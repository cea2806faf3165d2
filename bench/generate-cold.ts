// `npm run bench:generate`: a cold `npm run generate` (a new process, every artifact kind, no
// cache) against openapi-typescript producing types alone from our combined OpenAPI document, side
// by side in one run (rounds alternate). Target (issue 12): ours no slower. Wall time and the
// CPU of the child (user + system, from /proc) are both printed: the CPU figure is the steadier one
// on a shared machine.
//
//   npm run bench:generate -- [--rounds 5]

import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { waitedChildrenCpuUs } from '../test/e2e/process-cpu.ts';
import { arg } from './cli-options.ts';

const ROOT = resolve(import.meta.dirname, '..');
const ROUNDS = Number(arg('rounds', '5'));
const scratch = mkdtempSync(join(tmpdir(), 'clusterspec-bench-generate-'));
// our side generates a copy of spec/ into its own out/, so the repository is neither read as output nor written
const project = join(scratch, 'project');
cpSync(join(ROOT, 'spec'), join(project, 'spec'), { recursive: true });

interface Side {
  name: string;
  args: string[];
}

const sides: Side[] = [
  { name: 'clusterspec generate (all artifact kinds, no cache)', args: ['--import', 'tsx', join(ROOT, 'generators/cli.ts'), '--root', project, '--no-cache'] },
  { name: 'openapi-typescript (types only, out/openapi/v3/all.json)', args: [join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), join(ROOT, 'out/openapi/v3/all.json'), '-o', join(scratch, 'types.ts')] },
];

interface Sample {
  wallMs: number;
  cpuMs: number;
}

function runOnce(side: Side): Sample {
  const cpuBefore = waitedChildrenCpuUs() ?? 0;
  const start = performance.now();
  const r = spawnSync(process.execPath, side.args, { cwd: ROOT, encoding: 'utf8' });
  const wallMs = performance.now() - start;
  if (r.status !== 0) throw new Error(`${side.name} exited ${r.status}: ${r.stderr}`);
  return { wallMs, cpuMs: ((waitedChildrenCpuUs() ?? 0) - cpuBefore) / 1000 };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  for (const side of sides) runOnce(side); // warm the file cache, unrecorded
  const samples = sides.map(() => [] as Sample[]);
  for (let round = 0; round < ROUNDS; round++) sides.forEach((side, i) => samples[i].push(runOnce(side)));
  const [ours, theirs] = samples.map((s) => ({ wall: median(s.map((x) => x.wallMs)), cpu: median(s.map((x) => x.cpuMs)) }));
  console.log(`cold generation, a new process each, ${ROUNDS} alternating rounds, medians`);
  sides.forEach((side, i) => {
    const m = i === 0 ? ours : theirs;
    console.log(`  ${side.name.padEnd(60)} wall ${m.wall.toFixed(0).padStart(6)} ms   CPU ${m.cpu.toFixed(0).padStart(6)} ms`);
  });
  console.log(`  ratio ours/openapi-typescript: wall ${(ours.wall / theirs.wall).toFixed(2)}x, CPU ${(ours.cpu / theirs.cpu).toFixed(2)}x (target <= 1.00)`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
