// What a subcommand of `clusterspec` is: a name, a one-line summary for the help, and a run function
// returning the exit status. Adding a subcommand is one file in commands/ and one entry in commands/index.ts.
import { readFileSync } from 'node:fs';

export interface CliIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  readStdin: () => string;
  /** The working folder relative paths resolve against. */
  cwd: string;
}

export interface Command {
  name: string;
  summary: string;
  usage: string;
  run(args: string[], io: CliIO): number | Promise<number>;
}

/** Exit statuses, as kubectl-validate uses them. */
export const EXIT = { ok: 0, invalid: 1, usage: 2, internal: 3 } as const;

/** A bad command line: printed with the command's usage, exit status 2. */
export class UsageError extends Error {}

/** Reads `--flag VALUE` or `--flag=VALUE` at args[i]; returns the value and how many args it used. */
export function flagValue(args: string[], i: number, names: readonly string[]): { value: string; used: number } | undefined {
  const a = args[i];
  for (const n of names) {
    if (a === n) {
      const v = args[i + 1];
      if (v === undefined) throw new UsageError(`${n} needs a value`);
      return { value: v, used: 2 };
    }
    if (a.startsWith(`${n}=`)) return { value: a.slice(n.length + 1), used: 1 };
  }
  return undefined;
}

/** The process's standard streams and working folder. */
export function defaultIO(): CliIO {
  return {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    readStdin: () => readFileSync(0, 'utf8'),
    cwd: process.cwd(),
  };
}
