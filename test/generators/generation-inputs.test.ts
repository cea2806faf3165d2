// The generation cache (generators/generation-cache.ts) is exact only if its key covers every source
// the generation loads: each module of npm run generate's bundle must lie in the folders it hashes
// (generators/, runtime/, templates/), and none in out/ (the output: a stale out/ must not shape, or
// stop, the generation that renews it); each package it imports must be one whose manifest it hashes.
import { dirname, join, relative, resolve } from 'node:path';
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';
import { GENERATION_ENTRY, GENERATION_PACKAGES, TOOLCHAIN_DIRS } from '../../generators/generation-cache.ts';

const root = join(import.meta.dirname, '..', '..');

const bundle = (): Promise<esbuild.Metafile> => esbuild.build({
  stdin: { contents: GENERATION_ENTRY, resolveDir: join(root, 'generators'), sourcefile: 'generation-entry.ts', loader: 'ts' },
  bundle: true, platform: 'node', format: 'esm', packages: 'external', write: false, metafile: true, logLevel: 'silent',
}).then((r) => r.metafile);

/** The package a bare import names: `@scope/name` or `name`. */
const packageOf = (specifier: string): string => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

describe('the sources of npm run generate', () => {
  it('all lie in the folders the cache key hashes', async () => {
    const result = { metafile: await bundle() };
    const sources = Object.keys(result.metafile.inputs).filter((f) => f !== 'generation-entry.ts');
    // relative imports left external (none today) are sources too
    for (const [file, input] of Object.entries(result.metafile.inputs)) {
      for (const i of input.imports) if (i.external && i.path.startsWith('.')) sources.push(relative(root, resolve(root, dirname(file), i.path)));
    }
    expect(sources.length).toBeGreaterThan(50);
    const outside = sources.filter((f) => !TOOLCHAIN_DIRS.some((d) => f.startsWith(`${d}/`)));
    expect(outside).toEqual([]);
  });

  it('import only packages whose manifests the cache key hashes', async () => {
    const metafile = await bundle();
    const packages = new Set(Object.values(metafile.inputs).flatMap((input) => input.imports)
      .filter((i) => i.external && !i.path.startsWith('.') && !i.path.startsWith('node:')).map((i) => packageOf(i.path)));
    expect(packages.size).toBeGreaterThan(2);
    expect([...packages].filter((p) => !GENERATION_PACKAGES.includes(p))).toEqual([]);
  });
});
