// `clusterspec docs`: the API reference site alone, into a folder of the user's choice. For this
// repository's spec it is out/docs byte for byte (the library's meta shapes, which the spec holds
// itself, are read once); --check compares; a CRD project gets one site per version.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../generators/cli/main.ts';
import { siteFiles } from '../../generators/cli/commands/docs.ts';
import type { CliIO } from '../../generators/cli/command.ts';
import { EXAMPLE } from '../e2e/example-fixtures.ts';
import { ROOT } from '../e2e/harness.ts';

const tmp = mkdtempSync(join(tmpdir(), 'clusterspec-docs-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function run(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), readStdin: () => '', cwd };
  return { code: await main(args, io), stdout, stderr };
}

const list = (dir: string): string[] => readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();

describe('clusterspec docs', () => {
  it('the site files keep their place below docs/ (and below the version for CRD projects)', () => {
    const files = [
      { path: 'docs/index.html', content: 'a' },
      { path: 'v1/docs/core/x_v1.html', content: 'b' },
      { path: 'validators/docs.ts', content: 'c' },
    ];
    expect(siteFiles(files).map((f) => f.path)).toEqual(['index.html', 'v1/core/x_v1.html']);
  });

  it('writes this repository\'s site as out/docs holds it, and --check agrees, then finds a changed page', async () => {
    const out = join(tmp, 'site');
    const written = await run(['docs', '--spec', 'spec', '--out', out], ROOT);
    expect(written.stderr).toBe('');
    expect(written.code).toBe(0);
    expect(list(out)).toEqual(list(join(ROOT, 'out', 'docs')));
    for (const f of ['index.html', 'core/persistentvolume_v1.html']) expect(readFileSync(join(out, f), 'utf8')).toBe(readFileSync(join(ROOT, 'out', 'docs', f), 'utf8'));
    expect((await run(['docs', '--spec', 'spec', '--out', out, '--check'], ROOT)).code).toBe(0);
    writeFileSync(join(out, 'index.html'), 'changed');
    const stale = await run(['docs', '--spec', 'spec', '--out', out, '--check'], ROOT);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('changed: ');
  }, 120_000);

  it('a project of several versions gets one site per version', async () => {
    const out = join(tmp, 'widgets');
    const r = await run(['docs', '--out', out], EXAMPLE);
    expect(r.code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['v1', 'v1alpha1']);
    expect(list(join(out, 'v1'))).toContain('index.html');
  }, 120_000);
});
