// Bundles a package's compiled entry modules (dist/api/**/*.js) with esbuild's code splitting: each entry
// keeps its path, and the code it reaches is in dist/chunks/, one chunk per set of entries that share
// it. Importing one kind then reads a handful of files instead of about 130 modules (the compiled
// runtime and the CEL and RE2 libraries: Node's ESM loader costs about half a millisecond each), and a
// kind's code and schema are in a chunk that only entries of that kind (its group-version and the
// root) reach, so nothing of another kind loads. The libraries are bundled in, so the package has no
// dependency; their licences are written beside the chunks. tsc's declarations stay where they are.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { build } from 'esbuild';

export const CHUNKS_FOLDER = 'chunks';
export const LICENSES_FILE = 'THIRD-PARTY-LICENSES.txt';

export interface BundleResult {
  /** The files written, relative to dist/. */
  files: string[];
  /** The npm packages whose code is in the chunks, `name@version`. */
  bundledPackages: string[];
}

/** `node_modules/@scope/name/...` or `node_modules/name/...` of an esbuild input: the package folder. */
function packageFolderOf(input: string): string | undefined {
  const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input.split(sep).join('/'));
  return m?.[1];
}

/**
 * Replaces every `.js` of dist/ with the bundled entries of dist/api/ and their shared chunks.
 * `effects`: the compiled modules (relative to dist/) imported for their effect, which must reach the chunks.
 */
export async function bundleEntries(dist: string, effects: string[]): Promise<BundleResult> {
  const compiled = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'));
  const entryPoints = compiled.filter((f) => f.startsWith('api/')).sort().map((f) => join(dist, f));
  const staging = mkdtempSync(join(dist, '..', '.bundle-'));
  // Paths in the chunks' comments and the metafile are relative to the package, whatever the caller's folder.
  const base = resolve(dist, '..');
  try {
    const result = await build({
      absWorkingDir: base,
      entryPoints,
      outbase: dist,
      outdir: staging,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'es2022',
      chunkNames: `${CHUNKS_FOLDER}/[name]-[hash]`,
      // Readable like the compiled modules it replaces; a consumer's bundler minifies.
      minify: false,
      legalComments: 'none',
      metafile: true,
      logLevel: 'silent',
    });
    const kept = new Map(Object.values(result.metafile.outputs).flatMap((o) => Object.entries(o.inputs)).map(([f, i]) => [resolve(base, f), i.bytesInOutput]));
    const dropped = effects.filter((e) => !kept.get(resolve(dist, e)));
    if (dropped.length) throw new Error(`bundling dropped modules imported for their effect: ${dropped.join(', ')} (list them in package.json "sideEffects")`);
    const folders = [...new Set(Object.keys(result.metafile.inputs).map((f) => packageFolderOf(resolve(base, f))).filter((f): f is string => f !== undefined))].sort();
    const licences: string[] = [];
    const bundledPackages: string[] = [];
    for (const folder of folders) {
      const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name: string; version: string; license?: string };
      const licenceFile = readdirSync(folder).find((f) => /^licen[cs]e/i.test(f));
      if (!licenceFile || !existsSync(join(folder, licenceFile))) throw new Error(`${manifest.name}: no LICENSE file to ship with its bundled code`);
      bundledPackages.push(`${manifest.name}@${manifest.version}`);
      licences.push(`${manifest.name}@${manifest.version} (${manifest.license ?? 'see below'})\n\n${readFileSync(join(folder, licenceFile), 'utf8').trim()}\n`);
    }
    for (const f of compiled) rmSync(join(dist, f));
    cpSync(staging, dist, { recursive: true });
    writeFileSync(join(dist, LICENSES_FILE), `The chunks of this folder include the code of these packages, under these licences.\n\n${licences.join('\n---\n\n')}`);
    const files = Object.keys(result.metafile.outputs).map((o) => relative(staging, resolve(base, o)).split(sep).join('/'));
    return { files: [...files, LICENSES_FILE].sort(), bundledPackages };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
