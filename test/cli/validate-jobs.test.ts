// `clusterspec validate -j N`: the JSON report of a corpus big enough to start a worker thread is
// the same, byte for byte, with -j 1 (this thread alone) and -j 3; bad values of the flag are usage
// errors. (runtime's parallel run is tested apart in test/validate/parallel.test.ts, every chunk on a worker.)
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../generators/cli/main.ts';
import type { CliIO } from '../../generators/cli/command.ts';
import { MIN_BYTES_PER_WORKER } from '../../runtime/validate/parallel.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const tmp = mkdtempSync(join(tmpdir(), 'clusterspec-jobs-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Copies of every object fixture (valid and invalid, names numbered), ten documents a file, until the corpus is over `bytes`. */
function writeCorpus(dir: string, bytes: number): number {
  const objects = join(ROOT, 'test', 'fixtures', 'objects');
  const docs: string[] = [];
  for (const kind of readdirSync(objects).sort()) {
    for (const name of readdirSync(join(objects, kind)).sort()) {
      const fx = parse(readFileSync(join(objects, kind, name), 'utf8')) as { object?: Record<string, unknown> };
      if (fx.object) docs.push(stringify(fx.object, { lineWidth: 0 }));
    }
  }
  let written = 0;
  let files = 0;
  for (let n = 0; written <= bytes; files++) {
    const text = Array.from({ length: 10 }, () => docs[n++ % docs.length]).join('---\n');
    const sub = join(dir, `part-${files % 7}`);
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `manifests-${files}.yaml`), text);
    written += Buffer.byteLength(text);
  }
  return files;
}

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), readStdin: () => '', cwd: tmp };
  const code = await main(['validate', ...args], io);
  return { code, stdout, stderr };
}

describe('clusterspec validate --jobs', () => {
  it('-j 1 and -j 3 write the same JSON report of a corpus that starts a worker', async () => {
    const files = writeCorpus(join(tmp, 'corpus'), MIN_BYTES_PER_WORKER * 1.05);
    const one = await run(['-j', '1', '-o', 'json', '--strict', 'corpus']);
    const three = await run(['--jobs=3', '-o', 'json', '--strict', 'corpus']);
    expect(one.code).toBe(1);
    expect(three.code).toBe(1);
    const report = JSON.parse(one.stdout) as { resources: unknown[]; findings: unknown[] };
    expect(report.resources.length).toBe(files * 10);
    expect(report.findings.length).toBeGreaterThan(100);
    expect(three.stdout).toBe(one.stdout);
  }, 60_000);

  it.each([
    { args: ['-j', '0', 'x.yaml'], stderr: '--jobs is a number of threads, 1 or more' },
    { args: ['--jobs', 'four', 'x.yaml'], stderr: '--jobs is a number of threads, 1 or more' },
    { args: ['-j'], stderr: '-j needs a value' },
  ])('$args: a usage error', async ({ args, stderr }) => {
    const r = await run(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(stderr);
  });

  it('the help tells about -j', async () => {
    const r = await run(['--help']);
    expect(r.stdout).toMatch(/-j, --jobs N +threads that validate/);
  });
});
