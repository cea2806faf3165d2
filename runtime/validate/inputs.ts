// The files a run reads: operands as given, directories walked recursively for .yaml/.yml/.json
// (sorted, so reports are stable), symbolic link loops and unreadable entries reported, not fatal.
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { InputReason } from './findings.ts';

export const MANIFEST_FILE = /\.(ya?ml|json)$/i;

export type Input =
  /** `path` as the user gave or a walk found it (reports name it), `abs` to read. */
  | { kind: 'file'; path: string; abs: string; size: number }
  | { kind: 'stdin'; path: '<stdin>' }
  | { kind: 'problem'; path: string; reason: InputReason; message: string };

/** An operand that does not exist is a usage error (the run would check nothing the user meant). */
export class MissingOperandError extends Error {}

/** Operands relative to `cwd`; reported paths stay as given. */
export function collectInputs(operands: readonly string[], cwd = process.cwd()): Input[] {
  const out: Input[] = [];
  for (const operand of operands) {
    if (operand === '-') {
      out.push({ kind: 'stdin', path: '<stdin>' });
      continue;
    }
    let st;
    try {
      st = statSync(resolve(cwd, operand));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new MissingOperandError(`${operand}: no such file or directory`);
      out.push(problemOf(operand, e));
      continue;
    }
    if (st.isDirectory()) walk(operand, resolve(cwd, operand), new Set(), out);
    else out.push({ kind: 'file', path: operand, abs: resolve(cwd, operand), size: st.size });
  }
  return out;
}

function problemOf(path: string, e: unknown): Input {
  const err = e as NodeJS.ErrnoException;
  if (err.code === 'ELOOP') return { kind: 'problem', path, reason: 'SymlinkLoop', message: 'too many levels of symbolic links' };
  return { kind: 'problem', path, reason: 'Unreadable', message: err.message };
}

/** `seen` holds the real paths of the directories above this one: a link back to one of them is a loop. */
function walk(dir: string, abs: string, seen: Set<string>, out: Input[]): void {
  let real: string;
  let names: string[];
  try {
    real = realpathSync(abs);
    if (seen.has(real)) {
      out.push({ kind: 'problem', path: dir, reason: 'SymlinkLoop', message: `links back to ${real}, already being read` });
      return;
    }
    names = readdirSync(abs).sort();
  } catch (e) {
    out.push(problemOf(dir, e));
    return;
  }
  const below = new Set(seen).add(real);
  for (const name of names) {
    const p = join(dir, name);
    const pAbs = join(abs, name);
    let st;
    try {
      st = statSync(pAbs);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // A dangling link to something that is not a manifest is not worth a finding.
      if (code === 'ENOENT' && !MANIFEST_FILE.test(name)) continue;
      out.push(problemOf(p, e));
      continue;
    }
    if (st.isDirectory()) walk(p, pAbs, below, out);
    else if (st.isFile() && MANIFEST_FILE.test(name)) out.push({ kind: 'file', path: p, abs: pAbs, size: st.size });
  }
}
