// The generators write modules for out/ beside runtime/ (`../../runtime/...`). A project's output
// folder sits elsewhere: each import that lands in runtime/ is rewritten relative to the file's real place.
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { OutputFile } from '../output.ts';

const SPECIFIER = /(from\s+|import\s+)'(\.{1,2}\/[^']+)'/g;

/**
 * `platformOut` is where the generators assume the files go (this repository's out/), `outDir` where
 * they really go; imports into `runtimeDir` follow, every other import is left as written.
 */
export function rebaseRuntimeImports(files: OutputFile[], platformOut: string, outDir: string, runtimeDir: string): OutputFile[] {
  if (resolve(platformOut) === resolve(outDir)) return files;
  const runtimePrefix = resolve(runtimeDir) + sep;
  return files.map((f) => {
    if (!f.path.endsWith('.ts')) return f;
    const assumedDir = dirname(join(platformOut, f.path));
    const realDir = dirname(join(outDir, f.path));
    const content = f.content.replace(SPECIFIER, (whole, lead: string, spec: string) => {
      const target = resolve(assumedDir, spec);
      if (!target.startsWith(runtimePrefix)) return whole;
      let rel = relative(realDir, target).split(sep).join('/');
      if (!rel.startsWith('.')) rel = `./${rel}`;
      return `${lead}'${rel}'`;
    });
    return content === f.content ? f : { path: f.path, content };
  });
}
