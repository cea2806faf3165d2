// The generation cache: the key changes with any input (spec, generators, templates, runtime,
// package-lock.json) and not with tests or other files; an entry gives back exactly the files stored.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inputHash, readCache, writeCache } from '../../generators/generation-cache.ts';

const root = mkdtempSync(join(tmpdir(), 'clusterspec-cache-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function write(rel: string, text: string): void {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), text);
}

write('spec/api.yaml', 'openapi: 3.0.3\n');
write('generators/index.ts', 'export {};\n');
write('templates/validator.ts.tmpl', '{{header}}\n');
write('runtime/schema/compile.ts', 'export {};\n');
write('package-lock.json', '{}\n');

describe('generation cache', () => {
  const base = inputHash(root);

  it.each([
    { name: 'a spec file', file: 'spec/resources/widget.yaml', changes: true },
    { name: 'a generator', file: 'generators/index.ts', changes: true },
    { name: 'a template', file: 'templates/validator.ts.tmpl', changes: true },
    { name: 'the runtime the generators compile with', file: 'runtime/schema/compile.ts', changes: true },
    { name: 'package-lock.json (prettier and the other libraries)', file: 'package-lock.json', changes: true },
    { name: 'a test', file: 'runtime/schema/compile.test.ts', changes: false },
    { name: 'a file outside the inputs', file: 'README.md', changes: false },
  ])('$name: the key changes: $changes', ({ file, changes }) => {
    write(file, `// changed ${file}\n`);
    const after = inputHash(root);
    expect(after !== inputHash(root)).toBe(false);
    expect(after !== base).toBe(changes);
    rmSync(join(root, file));
    write('generators/index.ts', 'export {};\n');
    write('templates/validator.ts.tmpl', '{{header}}\n');
    write('runtime/schema/compile.ts', 'export {};\n');
    write('package-lock.json', '{}\n');
  });

  it('gives back exactly the stored files, and keeps only the newest entry', () => {
    const files = [{ path: 'index.ts', content: 'export {};\n' }, { path: 'crds/a.yaml', content: 'kind: CustomResourceDefinition\n' }];
    writeCache(root, 'aaa', files);
    expect(readCache(root, 'aaa')).toEqual(files);
    writeCache(root, 'bbb', files.slice(1));
    expect(readCache(root, 'aaa')).toBeUndefined();
    expect(readCache(root, 'bbb')).toEqual(files.slice(1));
  });
});
