// Kubernetes resource.Quantity: parsing, canonical comparison and arithmetic.
//
// Semantics follow apimachinery `pkg/api/resource` (facts only, not code): the value is
// rounded up (away from zero) to nano precision and capped at the int64 maximum of whole
// units, so every quantity is an exact integer number of nano-units, held here as a bigint.

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  /** The value in units of 1e-9 (exact). */
  readonly nanos: bigint;
  /** The suffix family the quantity was written in (used to print it back). */
  readonly format: QuantityFormat;
}

export const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const QUANTITY_NUMERIC_ERROR = 'unable to parse numeric part of quantity';
export const QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix";

export class QuantityParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QuantityParseError';
  }
}

const NANO = 1_000_000_000n;
const MAX_INT64 = 9_223_372_036_854_775_807n;
const MIN_INT64 = -9_223_372_036_854_775_808n;
const MAX_NANOS = MAX_INT64 * NANO;

const DECIMAL_SUFFIXES: Record<string, number> = {
  n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18,
};
const BINARY_SUFFIXES: Record<string, number> = {
  Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60,
};
const SUFFIX_CHARS = 'eEinumkKMGTP';

interface Parts { positive: boolean; num: string; denom: string; suffix: string }

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}

/** Splits a quantity string as upstream's parseQuantityString does. */
function splitQuantity(str: string): Parts {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (end > 0) {
    if (str[0] === '-') { positive = false; pos++; } else if (str[0] === '+') { pos++; }
  }
  // leading zeros
  for (;;) {
    if (pos >= end) return { positive, num: '0', denom: '', suffix: '' };
    if (str[pos] === '0') pos++; else break;
  }
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  let num = str.slice(pos, i);
  if (i >= end) return { positive, num: num === '' ? '0' : num, denom: '', suffix: '' };
  pos = i;
  if (num === '') num = '0';
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    let j = pos;
    while (j < end && isDigit(str[j])) j++;
    denom = str.slice(pos, j);
    if (j >= end) return { positive, num, denom, suffix: '' };
    pos = j;
  }
  const suffixStart = pos;
  let k = pos;
  while (k < end && SUFFIX_CHARS.includes(str[k])) k++;
  if (k >= end) return { positive, num, denom, suffix: str.slice(suffixStart) };
  pos = k;
  if (str[pos] === '-' || str[pos] === '+') pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos >= end) return { positive, num, denom, suffix: str.slice(suffixStart) };
  throw new QuantityParseError(QUANTITY_FORMAT_ERROR);
}

interface Suffix { base: 2 | 10; exponent: number; format: QuantityFormat }

function interpretSuffix(s: string): Suffix | null {
  if (s in DECIMAL_SUFFIXES) return { base: 10, exponent: DECIMAL_SUFFIXES[s], format: 'DecimalSI' };
  if (s in BINARY_SUFFIXES) return { base: 2, exponent: BINARY_SUFFIXES[s], format: 'BinarySI' };
  if (s.length > 1 && (s[0] === 'e' || s[0] === 'E')) {
    const rest = s.slice(1);
    if (/^[+-]?[0-9]+$/.test(rest)) {
      const n = Number(rest);
      if (Number.isSafeInteger(n)) return { base: 10, exponent: n, format: 'DecimalExponent' };
    }
  }
  return null;
}

/** Divides rounding away from zero (inputs are non-negative). */
function divUp(a: bigint, b: bigint): bigint {
  const q = a / b;
  return q * b === a ? q : q + 1n;
}

/** Parses a quantity; throws QuantityParseError with upstream's message when malformed. */
export function parseQuantity(str: string): Quantity {
  if (str.length === 0) throw new QuantityParseError(QUANTITY_FORMAT_ERROR);
  const { positive, num, denom, suffix } = splitQuantity(str);
  const suf = interpretSuffix(suffix);
  if (!suf) throw new QuantityParseError(QUANTITY_SUFFIX_ERROR);
  // magnitude = digits * 10^-scale
  const digits = BigInt(num + denom);
  const scale = denom.length;
  let nanos: bigint;
  if (digits === 0n) {
    nanos = 0n;
  } else if (suf.base === 10) {
    const e = suf.exponent + 9 - scale; // nanos = digits * 10^e
    const integerDigits = num.replace(/^0+/, '').length;
    if (integerDigits + suf.exponent > 30) nanos = MAX_NANOS;
    else if (e >= 0) nanos = digits * 10n ** BigInt(e);
    else if (-e > 60 + denom.length + num.length) nanos = 1n;
    else nanos = divUp(digits, 10n ** BigInt(-e));
  } else {
    // nanos = digits * 2^exp * 1e9 / 10^scale
    nanos = divUp(digits * (1n << BigInt(suf.exponent)) * NANO, 10n ** BigInt(scale));
  }
  if (nanos > MAX_NANOS) nanos = MAX_NANOS;
  let format = suf.format;
  if (format === 'BinarySI' && nanos > 0n && nanos < NANO) format = 'DecimalSI';
  return { nanos: positive ? nanos : -nanos, format };
}

/** Parses or returns null. */
export function tryParseQuantity(str: string): Quantity | null {
  try {
    return parseQuantity(str);
  } catch {
    return null;
  }
}

/** True when the string is a valid quantity. */
export function isQuantity(str: string): boolean {
  return tryParseQuantity(str) !== null;
}

export function compareQuantity(a: Quantity, b: Quantity): -1 | 0 | 1 {
  return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
}

export function quantitySign(q: Quantity): -1 | 0 | 1 {
  return q.nanos < 0n ? -1 : q.nanos > 0n ? 1 : 0;
}

export function addQuantity(a: Quantity, b: Quantity): Quantity {
  return { nanos: a.nanos + b.nanos, format: a.nanos === 0n ? b.format : a.format };
}

export function subQuantity(a: Quantity, b: Quantity): Quantity {
  return { nanos: a.nanos - b.nanos, format: a.nanos === 0n ? b.format : a.format };
}

export function negQuantity(a: Quantity): Quantity {
  return { nanos: -a.nanos, format: a.format };
}

/** True when the value is a whole number. */
export function quantityIsInteger(q: Quantity): boolean {
  return q.nanos % NANO === 0n;
}

/** The value as an int64 when it is whole and fits, else null (upstream AsInt64's ok=false). */
export function quantityAsInteger(q: Quantity): bigint | null {
  if (q.nanos % NANO !== 0n) return null;
  const v = q.nanos / NANO;
  if (v > MAX_INT64 || v < MIN_INT64) return null;
  return v;
}

/** The value as a float64, possibly losing precision. */
export function quantityAsApproximateFloat(q: Quantity): number {
  const whole = q.nanos / NANO;
  const frac = q.nanos % NANO;
  return Number(whole) + Number(frac) / 1e9;
}

/** A quantity from an integer count of whole units. */
export function quantityFromInteger(n: bigint | number, format: QuantityFormat = 'DecimalSI'): Quantity {
  return { nanos: BigInt(n) * NANO, format };
}

const DEC_SUFFIX_BY_EXP: Record<number, string> = { [-9]: 'n', [-6]: 'u', [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G', 12: 'T', 15: 'P', 18: 'E' };
const BIN_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/** Canonical string form (upstream Quantity.String): 1.5Gi -> 1536Mi, 0.5 -> 500m, 1000 -> 1k. */
export function quantityToString(q: Quantity): string {
  if (q.nanos === 0n) return '0';
  const neg = q.nanos < 0n;
  const abs = neg ? -q.nanos : q.nanos;
  const sign = neg ? '-' : '';
  if (q.format === 'BinarySI' && abs % NANO === 0n) {
    let v = abs / NANO;
    let i = 0;
    while (i < BIN_SUFFIXES.length - 1 && v % 1024n === 0n && v >= 1024n) { v /= 1024n; i++; }
    return sign + v.toString() + BIN_SUFFIXES[i];
  }
  // decimal: the largest exponent (multiple of 3, -9..18) leaving a whole mantissa
  let exp = -9;
  let mant = abs;
  while (exp < 18 && mant % 1000n === 0n) { mant /= 1000n; exp += 3; }
  if (q.format === 'DecimalExponent') return sign + mant.toString() + (exp === 0 ? '' : 'e' + exp);
  return sign + mant.toString() + DEC_SUFFIX_BY_EXP[exp];
}
