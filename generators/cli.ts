// npm run generate [-- --check]: writes out/ from spec/, or lists what is stale.
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { generate } from './index.ts';
import { writeOut, checkOut } from './write-out.ts';
import { SpecError } from './model/spec-error.ts';

const usage = `usage: npm run generate [-- --check] [--root DIR]
  --check   compare out/ with the spec instead of writing; exit 1 and list stale files if they differ
  --root    the repository root (default: this checkout)`;

async function main(argv: string[]): Promise<number> {
  let check = false;
  let root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--check') check = true;
    else if (a === '--root' && argv[i + 1]) root = resolve(argv[++i]);
    else if (a === '--help' || a === '-h') {
      console.log(usage);
      return 0;
    } else {
      console.error(`unknown argument: ${a}\n${usage}`);
      return 2;
    }
  }
  const started = performance.now();
  let files;
  try {
    files = await generate(root);
  } catch (err) {
    if (err instanceof SpecError) {
      console.error(`spec error${err.problems.length > 1 ? 's' : ''} (out/ left unchanged):\n${err.message}`);
      return 1;
    }
    throw err;
  }
  const outDir = resolve(root, 'out');
  if (check) {
    const report = checkOut(outDir, files);
    const stale = [...report.changed.map((p) => `changed: out/${p}`), ...report.missing.map((p) => `missing: out/${p}`), ...report.extra.map((p) => `not generated: out/${p}`)];
    if (stale.length) {
      console.error(`out/ is stale (run npm run generate and commit out/):\n${stale.join('\n')}`);
      return 1;
    }
    console.log(`out/ is current: ${files.length} files match spec/`);
    return 0;
  }
  writeOut(outDir, files);
  console.log(`generated ${files.length} files in out/ (${Math.round(performance.now() - started)} ms)`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.stack ?? err.message : String(err));
    process.exit(1);
  },
);
