// Every case in test/fixtures/spec-errors breaks a copy of spec/ in one way and names the
// message the generator must print: the file, the path inside it, and what is wrong.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it, afterAll } from 'vitest';
import { parse } from 'yaml';
import { generate } from '../../generators/index.ts';
import { SpecError, formatProblem } from '../../generators/model/spec-error.ts';

const root = join(import.meta.dirname, '..', '..');
const fixtures = join(root, 'test', 'fixtures', 'spec-errors');

interface Case {
  description: string;
  edit: { file: string; replace: string; with: string };
  want: { file: string; message: string };
}

const cases = readdirSync(fixtures).filter((f) => f.endsWith('.yaml')).sort()
  .map((f) => [f, parse(readFileSync(join(fixtures, f), 'utf8')) as Case] as const);

const temps: string[] = [];
afterAll(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

function brokenCopy(c: Case): string {
  const dir = mkdtempSync(join(tmpdir(), 'clusterspec-spec-'));
  temps.push(dir);
  cpSync(join(root, 'spec'), join(dir, 'spec'), { recursive: true });
  const path = join(dir, c.edit.file);
  const text = readFileSync(path, 'utf8');
  if (!text.includes(c.edit.replace)) throw new Error(`fixture edit does not apply: ${c.edit.replace}`);
  writeFileSync(path, text.replace(c.edit.replace, c.edit.with));
  return dir;
}

describe('a malformed spec fails with a message naming the file and the path', () => {
  it.each(cases)('%s', async (_name, c) => {
    const dir = brokenCopy(c);
    const err = await generate(dir).then(() => undefined, (e: unknown) => e);
    expect(err, c.description).toBeInstanceOf(SpecError);
    const lines = (err as SpecError).problems.map(formatProblem);
    const hit = lines.find((l) => l.startsWith(`${c.want.file}:`) && l.includes(c.want.message));
    expect(hit, `${c.description}\nwant ${c.want.file}: …${c.want.message}\ngot:\n${lines.join('\n')}`).toBeDefined();
  });
});

describe('the command line', () => {
  it('exits 1 on a spec error and leaves out/ untouched', () => {
    const c = cases.find(([n]) => n === 'broken-ref.yaml')![1];
    const dir = brokenCopy(c);
    cpSync(join(root, 'out'), join(dir, 'out'), { recursive: true });
    const before = execFileSync('find', ['out', '-type', 'f', '-exec', 'sha256sum', '{}', '+'], { cwd: dir, encoding: 'utf8' });
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'generators', 'cli.ts'), '--root', dir], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('spec/resources/configmap.yaml:');
    expect(run.stderr).toContain('no shape ObjectMetaX');
    const after = execFileSync('find', ['out', '-type', 'f', '-exec', 'sha256sum', '{}', '+'], { cwd: dir, encoding: 'utf8' });
    expect(after).toBe(before);
  });

  it('--check lists stale files and exits 1', () => {
    const dir = mkdtempSync(join(tmpdir(), 'clusterspec-check-'));
    temps.push(dir);
    cpSync(join(root, 'spec'), join(dir, 'spec'), { recursive: true });
    cpSync(join(root, 'out'), join(dir, 'out'), { recursive: true });
    writeFileSync(join(dir, 'out', 'routes', 'configmap.ts'), '// edited by hand\n');
    writeFileSync(join(dir, 'out', 'stray.txt'), 'not generated\n');
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'generators', 'cli.ts'), '--root', dir, '--check'], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('changed: out/routes/configmap.ts');
    expect(run.stderr).toContain('not generated: out/stray.txt');
  });
});
