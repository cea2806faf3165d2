// A cache of the last generation, keyed by a hash of every input: spec/ (under the root given), and
// from the toolchain (this checkout, which may be another folder than the root): the generators,
// templates and runtime they compile with, package.json and tsconfig.json (how the sources load), the
// installed libraries (the manifest of each package the generation loads, as resolved from the
// toolchain, and npm's record of the whole installed tree, node_modules/.package-lock.json, which npm
// rewrites on every install; package-lock.json too), and the Node.js and ICU versions (sorting uses
// localeCompare). A run whose inputs hash the same gives the cached files without loading the
// generators; --check compares those files with out/ exactly as it compares fresh ones. Only node: modules here.
import { createHash, type Hash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { OutputFile } from './output.ts';

const SPEC_DIRS = ['spec'];
/** Every source module the generation loads lies in these (test/generators/generation-inputs.test.ts checks). */
export const TOOLCHAIN_DIRS = ['generators', 'templates', 'runtime'];
/**
 * The modules npm run generate loads to generate (generators/cli.ts bundles them), relative to
 * generators/. Not the `clusterspec` commands: they load the platform's generated validators from
 * out/, which would make out/ an input (and a stale out/ could stop the generation that renews it).
 */
export const GENERATION_ENTRY = "export { generate } from './index.ts';\nexport { reportGenerationError } from './cli/generation-error.ts';\n";
/**
 * The packages the generation loads: the bundle's imports (test/generators/generation-inputs.test.ts
 * checks there is no other) and, in the format worker, prettier and json-schema-to-typescript.
 */
export const GENERATION_PACKAGES = ['@apidevtools/json-schema-ref-parser', '@bufbuild/re2', '@marcbachmann/cel-js', 'json-schema-to-typescript', 'prettier', 'ts-morph', 'yaml'];
const TOOLCHAIN_FILES = ['package.json', 'tsconfig.json', 'package-lock.json'];
const CACHE_VERSION = '2';

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Files under `dir` (relative to `base`), sorted, with forward slashes. */
function listInputs(base: string, dir: string): string[] {
  const abs = join(base, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs, { withFileTypes: true })
    .sort((a, b) => byName(a.name, b.name))
    .flatMap((e) => {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) return listInputs(base, rel);
      // Tests do not shape the output.
      return e.isFile() && !e.name.endsWith('.test.ts') ? [rel] : [];
    });
}

function hashFile(hash: Hash, label: string, abs: string): void {
  hash.update(`${label}\n`).update(readFileSync(abs)).update('\n');
}

/** The nearest `<dir>/node_modules/<rel>` above the toolchain, as node looks packages up from it (or undefined). */
function nearestInNodeModules(toolchain: string, rel: string): string | undefined {
  for (let dir = toolchain; dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = basename(dir) === 'node_modules' ? join(dir, rel) : join(dir, 'node_modules', rel);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** A hash of the libraries the toolchain's generation loads: each one's manifest and npm's record of the installed tree. */
export function librariesKey(toolchain: string): string {
  const hash = createHash('sha256');
  for (const name of GENERATION_PACKAGES) {
    const manifest = nearestInNodeModules(toolchain, join(name, 'package.json'));
    if (manifest) hashFile(hash, `package: ${name}`, manifest);
    else hash.update(`package: ${name} not installed\n`);
  }
  // npm's record of the installed tree the toolchain loads from
  const record = nearestInNodeModules(toolchain, '.package-lock.json');
  if (record) hashFile(hash, 'installed: .package-lock.json', record);
  return hash.digest('hex');
}

/**
 * The key of a generation of `root`/spec by the toolchain at `toolchain` (by default the same
 * folder, as for `npm run generate` in this checkout).
 */
export function inputHash(root: string, toolchain: string = root): string {
  const hash = createHash('sha256').update(`clusterspec-generate-cache ${CACHE_VERSION}\nnode ${process.version} icu ${process.versions.icu ?? '-'}\n`);
  for (const file of SPEC_DIRS.flatMap((d) => listInputs(root, d))) hashFile(hash, `spec: ${file}`, join(root, file));
  for (const file of TOOLCHAIN_DIRS.flatMap((d) => listInputs(toolchain, d))) hashFile(hash, `toolchain: ${file}`, join(toolchain, file));
  for (const file of TOOLCHAIN_FILES) if (existsSync(join(toolchain, file))) hashFile(hash, `toolchain: ${file}`, join(toolchain, file));
  hash.update(`libraries ${librariesKey(toolchain)}\n`);
  return hash.digest('hex');
}

/** Where the caches of a generation of `root` are kept. */
export const cacheDir = (root: string): string => join(root, 'node_modules', '.cache', 'clusterspec');

/** The files of the generation keyed `hash`, or undefined when there is none (or it cannot be read whole). */
export function readCache(root: string, hash: string): OutputFile[] | undefined {
  const file = join(cacheDir(root), `generate-${hash}.json`);
  if (!existsSync(file)) return undefined;
  try {
    const entry = JSON.parse(readFileSync(file, 'utf8')) as { key?: string; files?: OutputFile[] };
    // The key inside guards against a file renamed or copied by hand.
    return entry.key === hash && Array.isArray(entry.files) ? entry.files : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Keeps one entry: the newest generation. Written to a temporary name and renamed, so a reader never
 * sees half a file. A cache that cannot be written (a read-only folder) is not kept: that is no error.
 */
export function writeCache(root: string, hash: string, files: OutputFile[]): void {
  const dir = cacheDir(root);
  const tmp = join(dir, `.tmp-${process.pid}.json`);
  try {
    mkdirSync(dir, { recursive: true });
    for (const old of readdirSync(dir)) if (old.startsWith('generate-')) rmSync(join(dir, old), { force: true });
    writeFileSync(tmp, JSON.stringify({ key: hash, files }));
    renameSync(tmp, join(dir, `generate-${hash}.json`));
  } catch {
    rmSync(tmp, { force: true });
  }
}
