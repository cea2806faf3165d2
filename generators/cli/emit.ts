// Writes or checks a generated output folder and prints the outcome (npm run generate and
// clusterspec generate). Light on purpose: a cached generation uses it without loading the generators.
import { performance } from 'node:perf_hooks';
import type { OutputFile } from '../output.ts';
import { checkOut, writeOut } from '../write-out.ts';
import { EXIT, type CliIO } from './command.ts';

/** `label` names the folder in messages, `hint` says how to refresh it. */
export async function emitOutput(io: CliIO, files: OutputFile[], outDir: string, check: boolean, label: string, hint: string, started: number): Promise<number> {
  if (check) {
    const report = checkOut(outDir, files);
    const stale = [...report.changed.map((p) => `changed: ${label}/${p}`), ...report.missing.map((p) => `missing: ${label}/${p}`), ...report.extra.map((p) => `not generated: ${label}/${p}`)];
    if (stale.length) {
      io.stderr(`${label}/ is stale (run ${hint} and commit ${label}/):\n${stale.join('\n')}\n`);
      return EXIT.invalid;
    }
    io.stdout(`${label}/ is current: ${files.length} files match the spec\n`);
    return EXIT.ok;
  }
  await writeOut(outDir, files);
  io.stdout(`generated ${files.length} files in ${label}/ (${Math.round(performance.now() - started)} ms)\n`);
  return EXIT.ok;
}
