// Loads the generators as one esbuild bundle instead of module by module through tsx: tsx resolves
// and loads each of the ~200 source modules through its loader hooks, which cost about a second of
// a cold run's CPU, while esbuild bundles the same sources in under 0.1 s. Used only when running
// from the TypeScript sources with esbuild installed (the compiled toolchain package imports its
// JavaScript directly); anything unexpected falls back to a plain import, which behaves the same.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';

type Esbuild = typeof import('esbuild');

const GENERATORS_DIR = dirname(fileURLToPath(import.meta.url));
/** Bare imports in the bundle resolve from its folder: inside the repository's node_modules, as from the sources. */
const BUNDLE_DIR = join(GENERATORS_DIR, '..', 'node_modules', '.cache', 'clusterspec');

/** Each module keeps its own location: `import.meta.url` (templates, the repository root) names the source file, not the bundle. */
const ownLocation: Plugin = {
  name: 'own-location',
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, ({ path }) => ({
      contents: readFileSync(path, 'utf8')
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(path)))
        .replaceAll('import.meta.filename', JSON.stringify(path)),
      loader: 'ts',
    }));
  },
};

/** Modules the caller has loaded already stay outside the bundle, so that there is one instance of each (the format pool). */
function shared(paths: string[]): Plugin {
  const wanted = new Set(paths);
  return {
    name: 'shared',
    setup(build) {
      build.onResolve({ filter: /^\./ }, ({ path, resolveDir }) => {
        const abs = join(resolveDir, path);
        return wanted.has(abs) ? { path: pathToFileURL(abs).href, external: true } : undefined;
      });
    },
  };
}

const requireHere = createRequire(import.meta.url);

/**
 * Whether `specifier` (a package) is the same CommonJS file to import and to require: the bundle then
 * requires it. Imported from ESM, node first scans a CommonJS file's whole text for its export names
 * (cjs-module-lexer; ts-morph's is large) and sends it through the ESM loader's hooks: requiring yaml
 * and ts-morph costs about 0.2 s less CPU, and gives the same module (node keeps one instance of a
 * CommonJS file for both). A package with other files for import and require is imported as it is.
 */
function sameCommonJsFile(specifier: string): boolean {
  let required: string;
  let imported: string;
  try {
    required = requireHere.resolve(specifier);
    imported = fileURLToPath(import.meta.resolve(specifier));
  } catch {
    return false;
  }
  if (required !== imported || required.endsWith('.mjs')) return false;
  if (required.endsWith('.cjs')) return true;
  // a .js file is CommonJS unless the nearest package.json says "type": "module", as node decides
  for (let dir = dirname(required); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) return (JSON.parse(readFileSync(manifest, 'utf8')) as { type?: string }).type !== 'module';
  }
  return true;
}

/** The bundle's name for require() (defined by its banner): a name no bundled module declares. */
const REQUIRE = '__bundleRequire';

/** Package imports that are CommonJS files (sameCommonJsFile) become require() calls. */
const requireCommonJs: Plugin = {
  name: 'require-commonjs',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, ({ path, kind }) =>
      kind === 'import-statement' && !path.startsWith('node:') && sameCommonJsFile(path) ? { path, namespace: 'require-commonjs' } : undefined);
    build.onLoad({ filter: /.*/, namespace: 'require-commonjs' }, ({ path }) => ({ contents: `module.exports = ${REQUIRE}(${JSON.stringify(path)});`, loader: 'js' }));
  },
};

/**
 * The modules of `source` (import statements relative to generators/), bundled; `sharedModules` are
 * absolute paths of modules imported as they are.
 */
export async function importBundled<T>(source: string, sharedModules: string[], plain: () => Promise<T>): Promise<T> {
  if (!import.meta.url.endsWith('.ts')) return plain();
  let esbuild: Esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    return plain();
  }
  let text: string;
  try {
    const result = await esbuild.build({
      stdin: { contents: source, resolveDir: GENERATORS_DIR, sourcefile: 'generators-bundle.ts', loader: 'ts' },
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      write: false,
      logLevel: 'silent',
      banner: { js: `import { createRequire as ${REQUIRE}Of } from 'node:module';\nconst ${REQUIRE} = ${REQUIRE}Of(import.meta.url);` },
      plugins: [ownLocation, shared(sharedModules), requireCommonJs],
    });
    text = result.outputFiles[0].text;
  } catch {
    return plain();
  }
  mkdirSync(BUNDLE_DIR, { recursive: true });
  const file = join(BUNDLE_DIR, `bundle-${process.pid}-${randomBytes(4).toString('hex')}.mjs`);
  writeFileSync(file, text);
  try {
    return (await import(pathToFileURL(file).href)) as T;
  } finally {
    rmSync(file, { force: true });
  }
}
