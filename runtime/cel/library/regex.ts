// Regex through @bufbuild/re2 (linear time): matches, find, findAll. Never JS RegExp.
// `matches` is built into the engine with JS RegExp; our override replaces it at every call site.

import { RE2JS } from '@bufbuild/re2';
import { NOT_LITERAL, type CelRegistrar } from '../registrar.ts';
import { chargeCost, traversalCost } from '../runtime-cost.ts';
import { celError } from '../values.ts';

const cache = new Map<string, RE2JS>();

/** Compiles (cached) an RE2 pattern; throws a CEL error for invalid syntax. */
export function compileRegex(pattern: string): RE2JS {
  let re = cache.get(pattern);
  if (re) {
    cache.delete(pattern);
    cache.set(pattern, re);
    return re;
  }
  try {
    re = RE2JS.compile(pattern);
  } catch (e) {
    throw celError(`invalid regular expression '${pattern}': ${(e as Error).message}`);
  }
  cache.set(pattern, re);
  if (cache.size > 512) cache.delete(cache.keys().next().value as string);
  return re;
}

function chargeRegex(s: string, pattern: string): void {
  chargeCost(traversalCost(s.length) * Math.max(1, Math.ceil(pattern.length * 0.25)));
}

export function re2Matches(s: string, pattern: string): boolean {
  chargeRegex(s, pattern);
  return compileRegex(pattern).test(s);
}

// --- find / findAll: a Pike VM over RE2's compiled program (leftmost-first, linear time) ---

interface ProgInst {
  op: number;
  out: number;
  arg: number;
  matchRune(r: number): boolean;
}
interface Prog {
  start: number;
  inst: ProgInst[];
}

const OP = { ALT: 1, ALT_MATCH: 2, CAPTURE: 3, EMPTY_WIDTH: 4, FAIL: 5, MATCH: 6, NOP: 7, RUNE: 8, RUNE1: 9, RUNE_ANY: 10, RUNE_ANY_NOT_NL: 11 };

function isWordRune(r: number): boolean {
  return (r >= 0x61 && r <= 0x7a) || (r >= 0x41 && r <= 0x5a) || (r >= 0x30 && r <= 0x39) || r === 0x5f;
}

function emptyContext(r1: number, r2: number): number {
  let op = 0;
  if (r1 < 0) op |= 0x04 | 0x01;
  if (r1 === 0x0a) op |= 0x01;
  if (r2 < 0) op |= 0x08 | 0x02;
  if (r2 === 0x0a) op |= 0x02;
  op |= isWordRune(r1) !== isWordRune(r2) ? 0x10 : 0x20;
  return op;
}

function runeAt(s: string, i: number): number {
  return i < s.length ? (s.codePointAt(i) as number) : -1;
}

function progOf(re: RE2JS): Prog {
  return (re.re2Input as unknown as { prog: Prog }).prog;
}

/** Leftmost-first match at or after `from`: [start, end) in UTF-16 indexes, or null. */
export function re2Find(re: RE2JS, s: string, from: number): [number, number] | null {
  const prog = progOf(re);
  const n = prog.inst.length;
  let run: { pc: number; start: number }[] = [];
  let next: { pc: number; start: number }[] = [];
  let onRun = new Int32Array(n).fill(-1);
  let onNext = new Int32Array(n).fill(-1);
  let matched: [number, number] | null = null;

  const add = (q: { pc: number; start: number }[], mark: Int32Array, gen: number, pc: number, start: number, ctx: number): void => {
    if (mark[pc] === gen) return;
    mark[pc] = gen;
    const inst = prog.inst[pc];
    switch (inst.op) {
      case OP.FAIL:
        return;
      case OP.ALT:
      case OP.ALT_MATCH:
        add(q, mark, gen, inst.out, start, ctx);
        add(q, mark, gen, inst.arg, start, ctx);
        return;
      case OP.NOP:
      case OP.CAPTURE:
        add(q, mark, gen, inst.out, start, ctx);
        return;
      case OP.EMPTY_WIDTH:
        if ((inst.arg & ~ctx) === 0) add(q, mark, gen, inst.out, start, ctx);
        return;
      default:
        q.push({ pc, start });
    }
  };

  let pos = from;
  let prev = from > 0 ? (s.codePointAt(from - 1) as number) : -1;
  if (from > 0 && prev >= 0xdc00 && prev <= 0xdfff && from > 1) prev = s.codePointAt(from - 2) as number;
  let gen = 0;
  for (;;) {
    const r = runeAt(s, pos);
    const width = r > 0xffff ? 2 : 1;
    if (matched === null) add(run, onRun, gen, prog.start, pos, emptyContext(prev, r));
    if (run.length === 0) break;
    gen++;
    const nextR = r < 0 ? -1 : runeAt(s, pos + width);
    for (const t of run) {
      const inst = prog.inst[t.pc];
      if (inst.op === OP.MATCH) {
        matched = [t.start, pos];
        break; // lower-priority threads are cut off
      }
      if (r < 0) continue;
      let ok: boolean;
      if (inst.op === OP.RUNE_ANY) ok = true;
      else if (inst.op === OP.RUNE_ANY_NOT_NL) ok = r !== 0x0a;
      else ok = inst.matchRune(r);
      if (ok) add(next, onNext, gen, inst.out, t.start, emptyContext(r, nextR));
    }
    if (r < 0) break;
    chargeCost(0.1);
    [run, next] = [next, run];
    [onRun, onNext] = [onNext, onRun];
    next.length = 0;
    prev = r;
    pos += width;
  }
  return matched;
}

export function re2FindAll(re: RE2JS, s: string, limit: number): string[] {
  const out: string[] = [];
  let pos = 0;
  let prevEnd = -1;
  while (pos <= s.length && (limit < 0 || out.length < limit)) {
    const m = re2Find(re, s, pos);
    if (!m) break;
    let accept = true;
    if (m[1] === m[0]) {
      if (m[0] === prevEnd) accept = false;
      const r = runeAt(s, m[1]);
      pos = m[1] + (r > 0xffff ? 2 : 1);
    } else pos = m[1];
    prevEnd = m[1];
    if (accept) out.push(s.slice(m[0], m[1]));
  }
  return out;
}

function checkPatternLiteral(lits: unknown[]): void {
  const p = lits[1];
  if (p !== NOT_LITERAL && typeof p === 'string') compileRegex(p);
}

export function regexLibrary(r: CelRegistrar): void {
  r.fn('matches(string, string): bool', ((s: string, p: string) => re2Matches(s, p)) as never);
  const matchesOverride = {
    handler: (args: unknown[]) => {
      const [s, p] = args;
      if (typeof s !== 'string' || typeof p !== 'string') throw celError("found no matching overload for 'matches'");
      return re2Matches(s, p);
    },
    checkLiterals: checkPatternLiteral,
  };
  r.override('matches', 1, true, matchesOverride);
  r.override('matches', 2, false, matchesOverride);

  r.fn('string.find(string): string', ((s: string, p: string) => {
    chargeRegex(s, p);
    const re = compileRegex(p);
    const m = re2Find(re, s, 0);
    return m ? s.slice(m[0], m[1]) : '';
  }) as never);
  const findAll = (s: string, p: string, n: bigint): string[] => {
    chargeRegex(s, p);
    if (n === 0n) return [];
    return re2FindAll(compileRegex(p), s, n < 0n ? -1 : Number(n));
  };
  r.fn('string.findAll(string): list<string>', ((s: string, p: string) => findAll(s, p, -1n)) as never);
  r.fn('string.findAll(string, int): list<string>', ((s: string, p: string, n: bigint) => findAll(s, p, n)) as never);
  for (const [name, arity] of [['find', 1], ['findAll', 1], ['findAll', 2]] as const) {
    r.override(name, arity, true, {
      handler: (args: unknown[]) => {
        const [s, p, n] = args;
        if (typeof s !== 'string' || typeof p !== 'string') throw celError(`found no matching overload for '${name}'`);
        if (name === 'find') {
          chargeRegex(s, p);
          const m = re2Find(compileRegex(p), s, 0);
          return m ? s.slice(m[0], m[1]) : '';
        }
        return findAll(s, p, typeof n === 'bigint' ? n : -1n);
      },
      checkLiterals: checkPatternLiteral,
    });
  }
}
