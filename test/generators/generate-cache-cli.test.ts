// `npm run generate` with its cache (generators/generation-cache.ts): once a generation is cached,
// a run with unchanged inputs takes its files without generating, and `--check` still compares out/
// byte for byte: a file edited, removed or added by hand in out/ fails the check on a cache hit, and
// a plain run on a cache hit puts the file back. After a spec edit, the run that reuses the format
// worker's outputs (generators/format-cache.ts) writes what a generation from scratch writes.
// Three generations (~4 s CPU each), the rest cached runs.
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repo = join(import.meta.dirname, '..', '..');
const root = mkdtempSync(join(tmpdir(), 'clusterspec-generate-cache-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const CACHE_HIT = 'inputs unchanged since the last run';

function generate(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(process.execPath, ['--import', 'tsx', join(repo, 'generators', 'cli.ts'), '--root', root, ...args], { cwd: repo, encoding: 'utf8', timeout: 120_000 });
}

interface HandEdit {
  name: string;
  file: string;
  edit: (abs: string) => void;
  /** The line --check must print. */
  stale: string;
}

const handEdits: HandEdit[] = [
  { name: 'one byte appended to a generated file', file: 'index.ts', edit: (abs) => appendFileSync(abs, ' '), stale: 'changed: out/index.ts' },
  { name: 'a generated file emptied', file: 'crds/configmaps.core.crd.cluster.io.yaml', edit: (abs) => writeFileSync(abs, ''), stale: 'changed: out/crds/configmaps.core.crd.cluster.io.yaml' },
  { name: 'a generated file removed', file: 'rules/crd-left-out.json', edit: (abs) => rmSync(abs), stale: 'missing: out/rules/crd-left-out.json' },
  { name: 'a file added by hand', file: 'types/extra.ts', edit: (abs) => writeFileSync(abs, 'export {};\n'), stale: 'not generated: out/types/extra.ts' },
];

describe('npm run generate on a cache hit', () => {
  beforeAll(() => {
    cpSync(join(repo, 'spec'), join(root, 'spec'), { recursive: true });
    const first = generate();
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).not.toContain(CACHE_HIT);
  }, 180_000);

  it('uses the cached files, and out/ as written is current', () => {
    const run = generate('--check');
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain(CACHE_HIT);
    expect(run.stdout).toMatch(/^out\/ is current: \d+ files match the spec$/m);
    expect(run.status).toBe(0);
  });

  it.each(handEdits)('--check fails on $name, and a plain run restores out/', ({ file, edit, stale }) => {
    const abs = join(root, 'out', file);
    const before = (() => {
      try {
        return readFileSync(abs);
      } catch {
        return undefined;
      }
    })();
    edit(abs);
    const check = generate('--check');
    expect(check.stdout).toContain(CACHE_HIT);
    expect(check.status).toBe(1);
    expect(check.stderr.split('\n')).toContain(stale);

    const restore = generate();
    expect(restore.stdout).toContain(CACHE_HIT);
    expect(restore.status).toBe(0);
    if (before) expect(readFileSync(abs).equals(before)).toBe(true);
    const again = generate('--check');
    expect(again.status).toBe(0);
  });

  it('after a spec edit misses the cache, reuses the remembered formatting and writes what a generation from scratch writes', () => {
    appendFileSync(join(root, 'spec', 'resources', 'configmap.yaml'), '# a comment: a new input, the same output\n');
    const edited = generate();
    expect(edited.stderr).toBe('');
    expect(edited.stdout).not.toContain(CACHE_HIT);
    expect(edited.status).toBe(0);
    const scratch = generate('--check', '--no-cache');
    expect(scratch.stderr).toBe('');
    expect(scratch.status).toBe(0);
  }, 180_000);
});
