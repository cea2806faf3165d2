// The generation cache: the key changes with any input (spec, generators, templates, runtime,
// package.json, tsconfig.json, package-lock.json, the installed libraries) and not with tests or
// other files; spec/ is read from the root and the rest from the toolchain when they differ; an
// entry gives back exactly the files stored.
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
    { name: 'tsconfig.json (how the sources load)', file: 'tsconfig.json', changes: true },
    { name: 'the installed libraries (npm\'s node_modules/.package-lock.json)', file: 'node_modules/.package-lock.json', changes: true },
    { name: 'the manifest of a library the generation loads (prettier)', file: 'node_modules/prettier/package.json', changes: true },
    { name: 'the manifest of a library it does not load', file: 'node_modules/left-pad/package.json', changes: false },
    { name: 'the cache itself', file: 'node_modules/.cache/clusterspec/generate-x.json', changes: false },
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

  it('reads spec/ from the root and everything else from the toolchain when they differ', () => {
    const project = mkdtempSync(join(tmpdir(), 'clusterspec-cache-project-'));
    try {
      mkdirSync(join(project, 'spec'));
      writeFileSync(join(project, 'spec', 'api.yaml'), 'openapi: 3.0.3\n');
      const key = inputHash(project, root);
      expect(key).not.toBe(inputHash(project));
      writeFileSync(join(project, 'package-lock.json'), '{"changed": true}\n'); // the project's own: not the toolchain's
      expect(inputHash(project, root)).toBe(key);
      write('generators/index.ts', '// changed\n');
      expect(inputHash(project, root)).not.toBe(key);
      write('generators/index.ts', 'export {};\n');
      writeFileSync(join(project, 'spec', 'api.yaml'), 'openapi: 3.0.3\ninfo: {}\n');
      expect(inputHash(project, root)).not.toBe(key);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
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
