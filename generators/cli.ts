// npm run generate [-- --check]: writes out/ from spec/, or lists what is stale. This repository's
// run of the pipeline `clusterspec generate` runs for a project (generators/cli/commands/generate.ts),
// with the platform profile: every generator, the server's routes and the mirror CRDs.
// When no input changed since the last run (generation-cache.ts), the cached files are used and the
// generators are not even loaded; when some did, the formatting of each unchanged file is reused
// (format-cache.ts); the comparison of --check is the same either way.
import { resolve, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { emitOutput } from './cli/emit.ts';
import { defaultIO, EXIT } from './cli/command.ts';
import { GENERATION_ENTRY, inputHash, readCache, writeCache } from './generation-cache.ts';
import { importBundled } from './bundled-import.ts';

type GenerateModules = Pick<typeof import('./index.ts'), 'generate'> & Pick<typeof import('./cli/generation-error.ts'), 'reportGenerationError'>;

const usage = `usage: npm run generate [-- --check] [--root DIR] [--no-cache]
  --check     compare out/ with the spec instead of writing; exit 1 and list stale files if they differ
  --root      the repository root (default: this checkout)
  --no-cache  generate from scratch: use neither the last run's files nor its formatting (node_modules/.cache/clusterspec)
(clusterspec generate --spec DIR --out DIR compiles a project's own spec: see clusterspec generate --help)`;

async function main(argv: string[]): Promise<number> {
  const started = performance.now();
  const io = defaultIO();
  let check = false;
  let cache = true;
  // The checkout whose generators run; --root names where spec/ and out/ are.
  const toolchain = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  let root = toolchain;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--check') check = true;
    else if (a === '--no-cache') cache = false;
    else if (a === '--root' && argv[i + 1]) root = resolve(argv[++i]);
    else if (a === '--help' || a === '-h') {
      console.log(usage);
      return EXIT.ok;
    } else {
      console.error(`unknown argument: ${a}\n${usage}`);
      return EXIT.usage;
    }
  }
  const hash = cache ? inputHash(root, toolchain) : undefined;
  let files = hash ? readCache(root, hash) : undefined;
  if (files) io.stdout('inputs unchanged since the last run: its files are used (node_modules/.cache/clusterspec; --no-cache regenerates)\n');
  else {
    // Loaded only when generating: prettier, json-schema-to-typescript and the rest take most of a
    // cold run's time. The format worker starts first, to load prettier while the generators load;
    // the generators load as one bundle (bundled-import.ts), sharing this process's format pool.
    // With the cache on, what the format worker made of each unchanged input is reused (format-cache.ts).
    // V8 optimises a function once it has run for its interrupt budget; in a run this short, the
    // optimising compiles (on V8's helper threads) were a third of the CPU (perf). A budget 7.5 times
    // the default optimises only the hottest functions: about 20% less CPU and no longer wall time,
    // measured. Set before the generators and the format worker load; it changes no output.
    setFlagsFromString('--interrupt-budget=1000000');
    const formatPoolModule = join(dirname(fileURLToPath(import.meta.url)), 'format-pool.ts');
    const pool = (await import('./format-pool.ts')).formatPool();
    const formatCache = hash ? (await import('./format-cache.ts')).FileFormatCache.open(root, toolchain) : undefined;
    pool.useMemo(formatCache);
    // Without remembered outputs the worker has work for certain: it starts now. With them it starts on the first miss.
    if (!formatCache || formatCache.empty) pool.start();
    const { generate, reportGenerationError } = await importBundled<GenerateModules>(
      GENERATION_ENTRY,
      [formatPoolModule],
      async () => ({ ...(await import('./index.ts')), ...(await import('./cli/generation-error.ts')) }),
    );
    try {
      files = await generate(root);
    } catch (err) {
      const code = reportGenerationError(io, err, 'out');
      if (code !== undefined) return code;
      throw err;
    }
    if (hash) writeCache(root, hash, files);
    formatCache?.save();
  }
  return emitOutput(io, files, join(root, 'out'), check, 'out', 'npm run generate', started);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.stack ?? err.message : String(err));
    process.exit(1);
  },
);
