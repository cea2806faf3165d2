// The line a spec problem names is the line of the node at fault, whether its file was read on the
// fast path (generators/model/load.ts reads plain files from the syntax tree and builds yaml's
// document, with positions, only when a problem needs one) or in full. Each case of
// test/fixtures/spec-errors breaks one node by its edit: the problem must name the line the edit
// starts on. (yaml-syntax.yaml is left out: a syntax error is reported where the parser notices it.)
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { generate } from '../../generators/index.ts';
import { SpecError } from '../../generators/model/spec-error.ts';
import { fastManifests } from '../../runtime/validate/fast-yaml.ts';

const root = join(import.meta.dirname, '..', '..');
const fixtures = join(root, 'test', 'fixtures', 'spec-errors');

interface Case {
  edit: { file: string; replace: string; with: string };
  want: { file: string; message: string };
}

const cases = readdirSync(fixtures).filter((f) => f.endsWith('.yaml') && f !== 'yaml-syntax.yaml').sort()
  .map((f) => [f, parse(readFileSync(join(fixtures, f), 'utf8')) as Case] as const);

const temps: string[] = [];
afterAll(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('a spec problem names the line of the node at fault', () => {
  it.each(cases)('%s', async (_name, c) => {
    const dir = mkdtempSync(join(tmpdir(), 'clusterspec-spec-lines-'));
    temps.push(dir);
    cpSync(join(root, 'spec'), join(dir, 'spec'), { recursive: true });
    const text = readFileSync(join(dir, c.edit.file), 'utf8');
    const edited = text.replace(c.edit.replace, c.edit.with);
    writeFileSync(join(dir, c.edit.file), edited);
    const editLine = edited.slice(0, edited.indexOf(c.edit.with)).split('\n').length;
    const err = await generate(dir).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(SpecError);
    const problem = (err as SpecError).problems.find((p) => p.file === c.want.file && `${p.path}: ${p.message}`.includes(c.want.message));
    expect(problem).toBeDefined();
    expect(problem!.line).toBe(editLine);
  });

  it('most files of these cases are read on the fast path (so the lines above come from the lazily built document)', () => {
    const files = [...new Set(cases.map(([, c]) => c.edit.file))];
    const fast = files.filter((file) => fastManifests(readFileSync(join(root, file), 'utf8')) !== undefined);
    expect(fast.length * 2).toBeGreaterThan(files.length);
  });
});
