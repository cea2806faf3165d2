// npm run build:packages [-- NAME...]: compiles the repository's sources into the dist/ (and assets/)
// of each package under packages/. Deterministic: the same out/ and sources give the same files.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { loadSpec } from '../model/load.ts';
import { bundleEntries } from './bundle.ts';
import { compile } from './compile.ts';
import { artifactEntries, exportedTypeNames, typeEntries, type EntryFile, type KindEntry } from './entries.ts';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PACKAGE_NAMES = ['types', 'artifacts', 'toolchain', 'server'] as const;
export type PackageName = (typeof PACKAGE_NAMES)[number];

const packageDir = (root: string, name: PackageName): string => join(root, 'packages', name);

async function kindEntries(root: string): Promise<KindEntry[]> {
  const { model } = await loadSpec(root);
  return model.resources.map((r) => {
    const validatorModule = `out/validators/${r.shape.toLowerCase()}.ts`;
    if (!existsSync(join(root, validatorModule))) throw new Error(`${r.kind}: ${validatorModule} is missing (run npm run generate)`);
    return { group: r.group, version: r.version, kind: r.kind, listKind: r.listKind, validatorModule, ...(r.shape !== r.kind ? { typeName: r.shape } : {}) };
  });
}

function writeEntries(dist: string, files: EntryFile[]): void {
  for (const f of files) {
    mkdirSync(dirname(join(dist, f.path)), { recursive: true });
    writeFileSync(join(dist, f.path), f.content);
  }
}

/** Every `.ts` module of a folder of out/ (not the tests): the validators are compiled whatever modules they are made of. */
function modulesOf(root: string, folder: string): string[] {
  return readdirSync(join(root, folder))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .sort()
    .map((f) => join(root, folder, f));
}

function fresh(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
}

function copyFolder(from: string, to: string): void {
  cpSync(from, to, { recursive: true });
}

function buildTypes(root: string, kinds: KindEntry[]): void {
  const dist = join(packageDir(root, 'types'), 'dist');
  fresh(dist);
  compile({ root, entries: [join(root, 'out/types/index.ts')], outDir: dist, declarations: true, declarationsOnly: true });
  writeEntries(dist, typeEntries(kinds));
}

async function buildArtifacts(root: string, kinds: KindEntry[]): Promise<void> {
  const dir = packageDir(root, 'artifacts');
  const dist = join(dir, 'dist');
  const assets = join(dir, 'assets');
  fresh(dist);
  fresh(assets);
  compile({ root, entries: [join(root, 'out/types/index.ts'), ...modulesOf(root, 'out/validators')], outDir: dist, declarations: true });
  const typeNames = exportedTypeNames(readFileSync(join(root, 'out/types/index.ts'), 'utf8'));
  writeEntries(dist, artifactEntries(kinds, typeNames));
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  if (manifest.dependencies && Object.keys(manifest.dependencies).length) throw new Error('packages/artifacts: the chunks bundle the libraries; the package declares no dependency');
  // Checked on the compiled modules, because the bundling below reads the same list and would drop an unlisted one,
  // and on the chunks that replace them, which a consumer's bundler reads.
  const effects = checkSideEffects(dir);
  await bundleEntries(dist, effects);
  for (const folder of ['openapi', 'crds', 'jsonschema', 'jsonschema-strict']) copyFolder(join(root, 'out', folder), join(assets, folder));
  checkSideEffects(dir);
}

/**
 * A module imported for its effect alone (`import './x.js'`) is dropped by bundlers when the package
 * says it has no side effects: every such module must be listed in package.json's `sideEffects`
 * (a path, or a `*` pattern within one folder).
 */
function checkSideEffects(dir: string): string[] {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { sideEffects?: boolean | string[] };
  const patterns = (Array.isArray(manifest.sideEffects) ? manifest.sideEffects : []).map(
    (p) => new RegExp(`^${p.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`),
  );
  const dist = join(dir, 'dist');
  const missing = new Set<string>();
  const effects = new Set<string>();
  for (const file of readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'))) {
    for (const m of readFileSync(join(dist, file), 'utf8').matchAll(/^import\s*['"](\.[^'"]+)['"];?$/gm)) {
      const target = `./${relative(dir, resolve(dist, dirname(file), m[1])).split(sep).join('/')}`;
      effects.add(relative(dist, resolve(dist, dirname(file), m[1])).split(sep).join('/'));
      if (manifest.sideEffects !== true && !patterns.some((p) => p.test(target))) missing.add(target);
    }
  }
  if (missing.size) throw new Error(`packages/artifacts/package.json: add to "sideEffects" the modules imported for their effect: ${[...missing].sort().join(', ')}`);
  return [...effects].sort();
}

function buildToolchain(root: string): void {
  const dist = join(packageDir(root, 'toolchain'), 'dist');
  fresh(dist);
  compile({ root, entries: [join(root, 'generators/cli.ts'), join(root, 'generators/cli/main.ts')], outDir: dist, declarations: false });
  // generators/templates.ts reads the templates beside the generators, as in the repository.
  copyFolder(join(root, 'templates'), join(dist, 'templates'));
}

function buildServer(root: string): void {
  const dist = join(packageDir(root, 'server'), 'dist');
  fresh(dist);
  // The server imports the generated route and validator modules by path at start (runtime/http/bootstrap.ts).
  // and the worker threads' TypeScript entries, which nothing imports (runtime/http/decode/yaml-offload.ts starts it by URL)
  const entries = ['runtime/cli.ts', 'out/routes/index.ts', 'out/validators/index.ts', 'out/validators/feature-gates.ts', 'runtime/http/decode/yaml-decode.worker.ts'];
  compile({ root, entries: entries.map((e) => join(root, e)), outDir: dist, declarations: false });
  copyFolder(join(root, 'out/openapi'), join(dist, 'out/openapi'));
  // served as files at /docs/ and /jsonschema/ (runtime/http/docs-static.ts)
  copyFolder(join(root, 'out/docs'), join(dist, 'out/docs'));
  copyFolder(join(root, 'out/jsonschema'), join(dist, 'out/jsonschema'));
  copyFolder(join(root, 'out/validators/definitions.json'), join(dist, 'out/validators/definitions.json'));
  copyFolder(join(root, 'runtime/storage/wal-checkpoint-worker.js'), join(dist, 'runtime/storage/wal-checkpoint-worker.js'));
}

export async function buildPackages(root: string, names: readonly PackageName[] = PACKAGE_NAMES): Promise<Record<PackageName, number>> {
  const timings = {} as Record<PackageName, number>;
  const kinds = await kindEntries(root);
  for (const name of names) {
    const started = performance.now();
    if (name === 'types') buildTypes(root, kinds);
    else if (name === 'artifacts') await buildArtifacts(root, kinds);
    else if (name === 'toolchain') buildToolchain(root);
    else buildServer(root);
    timings[name] = Math.round(performance.now() - started);
  }
  return timings;
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((a) => !(PACKAGE_NAMES as readonly string[]).includes(a));
  if (unknown.length) {
    console.error(`unknown package: ${unknown.join(', ')} (one of ${PACKAGE_NAMES.join(', ')})`);
    process.exit(2);
  }
  const timings = await buildPackages(ROOT, asked.length ? (asked as PackageName[]) : PACKAGE_NAMES);
  console.log(Object.entries(timings).map(([n, ms]) => `packages/${n}: built in ${ms} ms`).join('\n'));
}
