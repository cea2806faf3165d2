// cel-go's math extension (ext.Math): math.greatest/least, rounding, abs/sign, float classes and bit
// operations. Kubernetes does not enable it; it is an extension environments opt into by name
// (the cel-spec conformance run does, as cel-go's conformance runner does).

import type { CelRegistrar, MacroChecker, MacroContext, MacroEvaluator, MacroNode, MacroType } from '../registrar.ts';
import { celError, MAX_UINT, MIN_INT, UnsignedInt } from '../values.ts';

type CelNumber = bigint | number | UnsignedInt;

const NUMERIC_TYPES = new Set(['int', 'uint', 'double', 'dyn']);

function isNumber(v: unknown): v is CelNumber {
  return typeof v === 'bigint' || typeof v === 'number' || v instanceof UnsignedInt;
}

/** Numeric ordering across int, uint and double (-1, 0, 1; NaN when a double is NaN). */
export function compareNumbers(a: CelNumber, b: CelNumber): number {
  const x = a instanceof UnsignedInt ? a.valueOf() : a;
  const y = b instanceof UnsignedInt ? b.valueOf() : b;
  if (typeof x === 'number' && typeof y === 'number') return x < y ? -1 : x > y ? 1 : x === y ? 0 : Number.NaN;
  if (typeof x === 'bigint' && typeof y === 'bigint') return x < y ? -1 : x > y ? 1 : 0;
  if (typeof x === 'bigint') return -compareNumbers(y, x);
  // x is a double, y an integer: doubles outside the 64-bit ranges order outside every integer
  const d = x as number;
  const i = y as bigint;
  if (Number.isNaN(d)) return Number.NaN;
  if (d >= 18446744073709551616 || d === Infinity) return 1;
  if (d < -9223372036854775808 || d === -Infinity) return -1;
  const t = BigInt(Math.trunc(d));
  if (t !== i) return t < i ? -1 : 1;
  const frac = d - Math.trunc(d);
  return frac > 0 ? 1 : frac < 0 ? -1 : 0;
}

function pick(values: unknown[], dir: 1 | -1, fn: string): unknown {
  if (values.length === 0) throw celError(`math.${fn}() argument list must not be empty`);
  let best: CelNumber | undefined;
  for (const v of values) {
    if (!isNumber(v)) throw celError(`no such overload: math.${fn}() of a non-numeric value`);
    if (best === undefined || compareNumbers(v, best) * dir > 0) best = v;
  }
  return best;
}

interface ExtremumState {
  args: MacroNode[];
  list: boolean;
}

/** `math.greatest(...)` / `math.least(...)`: numeric arguments or one list of them (a macro in cel-go too). */
function extremumMacro(fn: 'greatest' | 'least', dir: 1 | -1) {
  return {
    expand(args: MacroNode[]): ExtremumState {
      return { args, list: false };
    },
    typeCheck(chk: MacroChecker, s: ExtremumState, ctx: MacroContext): MacroType {
      const types = s.args.map((a) => chk.check(a, ctx));
      if (types.length === 1) {
        const t = types[0];
        if (t.kind === 'list') {
          const elem = t.valueType ?? chk.getType('dyn');
          if (!NUMERIC_TYPES.has(elem.name)) throw chk.createError('invalid_argument', `math.${fn}() invalid single argument value`, s.args[0]);
          s.list = true;
          return elem;
        }
        if (!NUMERIC_TYPES.has(t.name)) throw chk.createError('invalid_argument', `math.${fn}() invalid single argument value`, s.args[0]);
        return t;
      }
      for (let i = 0; i < types.length; i++)
        if (!NUMERIC_TYPES.has(types[i].name)) throw chk.createError('invalid_argument', `math.${fn}() simple literal arguments must be numeric`, s.args[i]);
      return types.every((t) => t.name === types[0].name) ? types[0] : chk.getType('dyn');
    },
    evaluate(ev: MacroEvaluator, s: ExtremumState, ctx: MacroContext): unknown {
      const values = s.args.map((a) => ev.run(a, ctx));
      if (values.length === 1) {
        const v = values[0];
        if (Array.isArray(v)) return pick(v, dir, fn);
        return pick([v], dir, fn);
      }
      return pick(values, dir, fn);
    },
  };
}

/** Go's math.Round: half away from zero. */
function roundHalfAway(x: number): number {
  if (!Number.isFinite(x)) return x;
  const t = Math.trunc(x);
  return Math.abs(x - t) >= 0.5 ? t + Math.sign(x) : t === 0 ? 0 * Math.sign(x) : t;
}

function toInt64(v: bigint): bigint {
  return BigInt.asIntN(64, v);
}

function shiftCount(n: bigint): bigint {
  if (n < 0n) throw celError(`math.bitShift() negative offset: ${n}`);
  return n;
}

/** Up to cel-go's practical limit: the engine caps call arguments at 32. */
const MAX_EXTREMUM_ARGS = 32;

export function mathLibrary(r: CelRegistrar): void {
  const ns = r.namespace('math');
  for (let n = 1; n <= MAX_EXTREMUM_ARGS; n++) {
    r.macro('greatest', n, true, extremumMacro('greatest', 1), ns);
    r.macro('least', n, true, extremumMacro('least', -1), ns);
  }
  const dbl = (name: string, f: (x: number) => number): void => {
    r.fn(`${ns}.${name}(double): double`, ((_n: unknown, x: unknown) => {
      if (typeof x !== 'number') throw celError(`no such overload: math.${name}()`);
      return f(x);
    }) as never);
  };
  dbl('ceil', Math.ceil);
  dbl('floor', Math.floor);
  dbl('trunc', Math.trunc);
  dbl('round', roundHalfAway);
  const cls = (name: string, f: (x: number) => boolean): void => {
    r.fn(`${ns}.${name}(double): bool`, ((_n: unknown, x: unknown) => {
      if (typeof x !== 'number') throw celError(`no such overload: math.${name}()`);
      return f(x);
    }) as never);
  };
  cls('isNaN', Number.isNaN);
  cls('isInf', (x) => x === Infinity || x === -Infinity);
  cls('isFinite', Number.isFinite);

  r.fn(`${ns}.abs(int): int`, ((_n: unknown, x: bigint) => {
    if (x === MIN_INT) throw celError('math.abs() overflow');
    return x < 0n ? -x : x;
  }) as never);
  r.fn(`${ns}.abs(uint): uint`, ((_n: unknown, x: UnsignedInt) => x) as never);
  r.fn(`${ns}.abs(double): double`, ((_n: unknown, x: number) => Math.abs(x)) as never);
  r.fn(`${ns}.sign(int): int`, ((_n: unknown, x: bigint) => (x > 0n ? 1n : x < 0n ? -1n : 0n)) as never);
  r.fn(`${ns}.sign(uint): uint`, ((_n: unknown, x: UnsignedInt) => new UnsignedInt(x.valueOf() > 0n ? 1n : 0n)) as never);
  r.fn(`${ns}.sign(double): double`, ((_n: unknown, x: number) => (Number.isNaN(x) ? x : x > 0 ? 1 : x < 0 ? -1 : 0)) as never);
  for (const t of ['int', 'uint', 'double'])
    r.fn(`${ns}.sqrt(${t}): double`, ((_n: unknown, x: CelNumber) => Math.sqrt(Number(x instanceof UnsignedInt ? x.valueOf() : x))) as never);

  const bits = (name: string, f: (a: bigint, b: bigint) => bigint): void => {
    r.fn(`${ns}.${name}(int, int): int`, ((_n: unknown, a: bigint, b: bigint) => toInt64(f(a, b))) as never);
    r.fn(`${ns}.${name}(uint, uint): uint`, ((_n: unknown, a: UnsignedInt, b: UnsignedInt) =>
      new UnsignedInt(BigInt.asUintN(64, f(a.valueOf(), b.valueOf())))) as never);
  };
  bits('bitAnd', (a, b) => a & b);
  bits('bitOr', (a, b) => a | b);
  bits('bitXor', (a, b) => a ^ b);
  r.fn(`${ns}.bitNot(int): int`, ((_n: unknown, a: bigint) => ~a) as never);
  r.fn(`${ns}.bitNot(uint): uint`, ((_n: unknown, a: UnsignedInt) => new UnsignedInt(MAX_UINT ^ a.valueOf())) as never);
  r.fn(`${ns}.bitShiftLeft(int, int): int`, ((_n: unknown, a: bigint, s: bigint) =>
    shiftCount(s) >= 64n ? 0n : toInt64(a << s)) as never);
  r.fn(`${ns}.bitShiftLeft(uint, int): uint`, ((_n: unknown, a: UnsignedInt, s: bigint) =>
    new UnsignedInt(shiftCount(s) >= 64n ? 0n : BigInt.asUintN(64, a.valueOf() << s))) as never);
  // cel-go shifts an int right logically (as its uint64 bits), so negative numbers lose their sign
  r.fn(`${ns}.bitShiftRight(int, int): int`, ((_n: unknown, a: bigint, s: bigint) =>
    shiftCount(s) >= 64n ? 0n : toInt64(BigInt.asUintN(64, a) >> s)) as never);
  r.fn(`${ns}.bitShiftRight(uint, int): uint`, ((_n: unknown, a: UnsignedInt, s: bigint) =>
    new UnsignedInt(shiftCount(s) >= 64n ? 0n : a.valueOf() >> s)) as never);
}
