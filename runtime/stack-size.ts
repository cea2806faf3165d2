// The server's V8 stack. Request bodies may nest 10,000 levels (upstream's limit), and
// JSON.stringify/parse and our recursive walks over such a value need about 2.5 MB of stack, more
// than V8's default (~984 KB). V8 takes the size only at start (`--stack-size`, in KB), and it must
// stay inside the main thread's OS stack (RLIMIT_STACK), or the process dies of SIGSEGV instead of
// throwing a RangeError. No imports beyond node: so that the re-exec gate stays cheap.

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** V8's default stack size on 64-bit platforms, in KB. */
export const V8_DEFAULT_STACK_KB = 984;
/** The most we ask for: half of the usual 8 MiB OS stack, less room for what runs below V8's frames. */
export const MAX_STACK_KB = 3900;
/** What 10,000 nesting levels need with margin (measured: JSON.stringify of 10,000 levels needs ~2,500). */
export const DEEP_NESTING_STACK_KB = 3000;

/**
 * The soft RLIMIT_STACK in bytes from /proc/<pid>/limits text ("Max stack size  8388608  unlimited
 * bytes"): Infinity for "unlimited", undefined when the line is missing or unreadable.
 */
export function parseStackLimit(limitsText: string): number | undefined {
  const m = /^Max stack size\s+(\S+)/m.exec(limitsText);
  if (!m) return undefined;
  if (m[1] === 'unlimited') return Infinity;
  return /^\d+$/.test(m[1]) ? Number(m[1]) : undefined;
}

/** The soft stack limit of this process (bytes), or undefined where /proc is not there. */
export function osStackLimitBytes(): number | undefined {
  try {
    return parseStackLimit(readFileSync('/proc/self/limits', 'utf8'));
  } catch {
    return undefined;
  }
}

export type StackChoice =
  /** Run with `--stack-size=kb`; `note` when it is less than deep nesting needs. */
  | { kind: 'raise'; kb: number; note?: string }
  /** Keep V8's default: the OS stack leaves no room for more. */
  | { kind: 'keep'; note: string };

/** Half of the OS stack (the rest stays for native frames), at most MAX_STACK_KB. */
export function chooseStackSize(limitBytes: number | undefined): StackChoice {
  if (limitBytes === undefined) return { kind: 'keep', note: `the OS stack limit is unknown (no /proc/self/limits): keeping V8's default stack (${V8_DEFAULT_STACK_KB} KB); deeply nested requests may fail` };
  const kb = Math.min(MAX_STACK_KB, Math.floor(limitBytes / 1024 / 2));
  const limitText = `${Math.floor(limitBytes / 1024)} KB`;
  if (kb <= V8_DEFAULT_STACK_KB) return { kind: 'keep', note: `the OS stack limit (ulimit -s) is ${limitText}: keeping V8's default stack (${V8_DEFAULT_STACK_KB} KB); deeply nested requests may fail` };
  if (kb < DEEP_NESTING_STACK_KB) return { kind: 'raise', kb, note: `the OS stack limit (ulimit -s) is ${limitText}: the V8 stack is ${kb} KB, less than requests nested 10,000 levels deep need (${DEEP_NESTING_STACK_KB} KB)` };
  return { kind: 'raise', kb };
}

/** Whether node was started with a V8 stack size (`--stack-size=N`; V8 also reads `--stack_size`). */
export function hasStackSizeFlag(execArgv: readonly string[]): boolean {
  return execArgv.some((a) => /^--stack[-_]size(=|$)/.test(a));
}

/** The node flags that give a server process its stack here: `['--stack-size=N']`, or none. */
export function serverStackArgs(limitBytes = osStackLimitBytes()): string[] {
  const choice = chooseStackSize(limitBytes);
  return choice.kind === 'raise' ? [`--stack-size=${choice.kb}`] : [];
}

/**
 * Node flags without `--import <file>` (either spelling). The re-exec gate drops its own preload for
 * the child: the child reaches it through cli.ts, and worker threads, which inherit the flags but not
 * tsx's loader for preloads, would fail on it.
 */
export function withoutPreload(execArgv: readonly string[], file: string, cwd = process.cwd()): string[] {
  const isFile = (specifier: string): boolean => (specifier.startsWith('file:') ? fileURLToPath(specifier) : resolve(cwd, specifier)) === file;
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const a = execArgv[i];
    if (a === '--import' && i + 1 < execArgv.length && isFile(execArgv[i + 1])) i++;
    else if (!(a.startsWith('--import=') && isFile(a.slice('--import='.length)))) out.push(a);
  }
  return out;
}
