// What importing one kind's validator loads: its module, its data, the shared schema runtime, CEL,
// quantity, RE2; never the server (runtime/http, registry, storage), never the schema compiler
// (schema-tree.ts, codegen.ts, compile.ts, codegen-module.ts), never another kind; every relative
// import with its extension, so the modules stay importable by plain ESM once compiled.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const validatorsDir = join(root, 'out', 'validators');
const kindModules = readdirSync(validatorsDir).filter((f) => f.endsWith('.ts') && !['index.ts', 'definitions.ts', 'feature-gates.ts'].includes(f) && !f.endsWith('.data.ts')).sort();

/** Static imports that load code (type-only imports are erased), by file. */
function runtimeImports(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of src.matchAll(/^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)) if (!m[1]) out.push(m[2]);
  return out;
}

/** Every file a module loads, relative to the repository, and the packages it imports. */
function closure(entry: string): { files: string[]; packages: string[]; specifiers: string[] } {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const specifiers: string[] = [];
  const todo = [entry];
  while (todo.length) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    if (!f.endsWith('.ts')) continue;
    for (const spec of runtimeImports(f)) {
      specifiers.push(spec);
      if (spec.startsWith('.')) todo.push(resolve(dirname(f), spec));
      else packages.add(spec);
    }
  }
  return { files: [...seen].map((f) => relative(root, f)).sort(), packages: [...packages].sort(), specifiers };
}

describe('what a standalone validator module loads', () => {
  it('finds the kinds', () => expect(kindModules.length).toBeGreaterThanOrEqual(14));

  it.each(kindModules)('%s', (file) => {
    const { files, packages, specifiers } = closure(join(validatorsDir, file));
    const base = file.replace(/\.ts$/, '');
    expect(files.filter((f) => /^runtime\/(http|registry|storage|crd)\//.test(f))).toEqual([]);
    expect(files.filter((f) => /^runtime\/schema\/(schema-tree|codegen|compile|codegen-module)\.ts$/.test(f))).toEqual([]);
    expect(files.filter((f) => f.startsWith('out/') && !['out/validators/feature-gates.ts', 'out/validators/shared.ts', `out/validators/${base}.ts`, `out/validators/${base}.data.ts`].includes(f))).toEqual([]);
    expect(specifiers.filter((s) => s.startsWith('.') && !/\.(ts|json)$/.test(s))).toEqual([]);
    expect(packages.every((p) => p.startsWith('@marcbachmann/cel-js') || p === '@bufbuild/re2'), packages.join(' ')).toBe(true);
    // nothing it loads turns text into code
    for (const f of files.filter((x) => x.endsWith('.ts'))) expect(readFileSync(join(root, f), 'utf8'), f).not.toMatch(/new Function\(|\beval\(/);
  });
});
