// Helpers of the CEL rules compiled to JavaScript ahead of time (cel-aot.ts). A compiled rule reads
// the JSON value itself (no conversion to CEL values) and may only answer `true`: whenever a value is
// not what the fast path expects (an absent field, a wrong type, an out-of-range index, two
// structures that differ) it throws BAIL, and the interpreter evaluates the rule as the reference
// (errors, messages, messageExpression and every false result come from the interpreter).
import { deepEqual, hasOwn, isObject } from './rules/util.ts';
import { runeCount } from './codegen-runtime.ts';
import { compileRegex } from '../cel/library/regex.ts';

/** Thrown by a compiled rule that leaves the answer to the interpreter. */
export const BAIL: unique symbol = Symbol('cel-aot bail');

/** A CEL rule compiled to JavaScript: true, or BAIL thrown (or anything else: the interpreter decides). */
export type CompiledCelFast = (self: unknown, oldSelf: unknown) => boolean;

/** Longest string matched by JS RegExp in matchesAscii (longer ones go to RE2, linear whatever the input). */
const ASCII_FAST_MAX = 256;
const ASCII_ONLY = /^[\x00-\x7f]*$/;
/** lowerAscii() returns a string without capitals as it is (no replace, no callback). */
const ASCII_UPPER = /[A-Z]/;

// The CEL format library's patterns (runtime/cel/library/format.ts), and as JS RegExp for short ASCII text.
const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const DNS1123_LABEL_JS = new RegExp(`^(?:${DNS1123_LABEL})$`);
const DNS1123_SUBDOMAIN_JS = new RegExp(`^(?:${DNS1123_SUBDOMAIN})$`);

function bail(): never {
  throw BAIL;
}

/** A present, non-null field or map value (CEL values drop null fields); an absent one costs one read. */
function present(o: Record<string, unknown>, k: string): boolean {
  const v = o[k];
  return v !== undefined && v !== null && hasOwn(o, k);
}

export const A = {
  bail,
  /** A string (CEL string). */
  S(x: unknown): string {
    return typeof x === 'string' ? x : bail();
  },
  /** An integer CEL holds exactly (int). */
  I(x: unknown): number {
    return typeof x === 'number' && Number.isSafeInteger(x) ? x : bail();
  },
  B(x: unknown): boolean {
    return typeof x === 'boolean' ? x : bail();
  },
  L(x: unknown): unknown[] {
    return Array.isArray(x) ? x : bail();
  },
  /** `o.k` of an object or a map: an absent field is CEL's `no such key` error. */
  sel(o: unknown, k: string): unknown {
    if (!isObject(o)) return bail();
    const v = o[k];
    return v !== undefined && v !== null && hasOwn(o, k) ? v : bail();
  },
  /** `has(o.k)`. */
  has(o: unknown, k: string): boolean {
    return isObject(o) ? present(o, k) : bail();
  },
  /** `a == b` of two structures: equal JSON is equal CEL; unequal JSON is left to the interpreter (sets, bytes, unknown fields). */
  eq(a: unknown, b: unknown): true {
    return deepEqual(a, b) ? true : bail();
  },
  /** size() of a string: code points. */
  strSize(s: unknown): number {
    return runeCount(A.S(s));
  },
  /** size() of a map: its non-null entries. */
  mapSize(m: unknown): number {
    if (!isObject(m)) bail();
    let n = 0;
    for (const k in m) if (present(m, k)) n++;
    return n;
  },
  /** A map's keys, as CEL iterates them (non-null entries). */
  keys(m: unknown): string[] {
    if (!isObject(m)) bail();
    return Object.keys(m).filter((k) => present(m, k));
  },
  /** `k in m` of a map. */
  inMap(k: unknown, m: unknown): boolean {
    return isObject(m) ? present(m, A.S(k)) : bail();
  },
  /** `x in list` of a list of strings. */
  inStrings(x: unknown, l: unknown): boolean {
    const s = A.S(x);
    let found = false;
    for (const e of A.L(l)) if (A.S(e) === s) found = true;
    return found;
  },
  idx(l: unknown, i: number): unknown {
    const list = A.L(l);
    return i >= 0 && i < list.length ? list[i] : bail();
  },
  /** lowerAscii(). */
  lower(s: string): string {
    return ASCII_UPPER.test(s) ? s.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : s;
  },
  /** matches() through the CEL library's own RE2 (the same compiled program, cached). */
  matches(s: string, pattern: string): boolean {
    return compileRegex(pattern).test(s);
  },
  /** Whether format.dns1123Subdomain() accepts s (runtime/cel/library/format.ts: length, then the pattern). */
  dns1123Subdomain(s: string): boolean {
    return s.length <= 253 && A.matchesAscii(s, `^(?:${DNS1123_SUBDOMAIN})$`, DNS1123_SUBDOMAIN_JS);
  },
  /** Whether format.dns1123Label() accepts s. */
  dns1123Label(s: string): boolean {
    return s.length <= 63 && A.matchesAscii(s, `^(?:${DNS1123_LABEL})$`, DNS1123_LABEL_JS);
  },
  /**
   * matches() of a pattern cel-aot.ts found to mean the same in JS RegExp as in RE2 on ASCII text
   * (anchored, ASCII classes, no `.`): short ASCII strings through the JS engine (bounded, so
   * backtracking stays cheap), anything else through RE2.
   */
  matchesAscii(s: string, pattern: string, js: RegExp): boolean {
    return s.length <= ASCII_FAST_MAX && ASCII_ONLY.test(s) ? js.test(s) : compileRegex(pattern).test(s);
  },
};

export type CelAotHelpers = typeof A;
