// cel-go strings extension (as Kubernetes enables it): code-point semantics, ASCII-only case mapping.
// Functions the engine already has with different semantics are overridden at their call sites.

import type { CelRegistrar } from '../registrar.ts';
import { chargeCost, traversalCost } from '../runtime-cost.ts';
import { celError, Duration } from '../values.ts';
import { listIndexOf, listLastIndexOf } from './lists.ts';
import { durationString, timestampString } from './time-bytes.ts';

const cps = (s: string): string[] => Array.from(s);

function toIndex(n: unknown, what: string): number {
  if (typeof n !== 'bigint') throw celError(`${what}: index must be an int`);
  return Number(n);
}

export function indexOfCp(s: string, sub: string, from = 0): bigint {
  const a = cps(s);
  const b = cps(sub);
  if (from < 0 || from > a.length) throw celError(`index out of range: ${from}`);
  chargeCost(traversalCost(a.length));
  for (let i = from; i + b.length <= a.length; i++) {
    let ok = true;
    for (let j = 0; j < b.length; j++) if (a[i + j] !== b[j]) { ok = false; break; }
    if (ok) return BigInt(i);
  }
  return -1n;
}

export function lastIndexOfCp(s: string, sub: string, from?: number): bigint {
  const a = cps(s);
  const b = cps(sub);
  const start = from ?? a.length;
  if (start < 0 || start > a.length) throw celError(`index out of range: ${start}`);
  chargeCost(traversalCost(a.length));
  for (let i = Math.min(start, a.length - b.length); i >= 0; i--) {
    let ok = true;
    for (let j = 0; j < b.length; j++) if (a[i + j] !== b[j]) { ok = false; break; }
    if (ok) return BigInt(i);
  }
  return -1n;
}

const ASCII_LOWER = (s: string): string => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const ASCII_UPPER = (s: string): string => s.replace(/[a-z]/g, (c) => c.toUpperCase());

// Go's unicode.IsSpace (what strings.TrimSpace uses)
const GO_SPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]';
const TRIM_RE = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, 'g');

export function goSplit(s: string, sep: string, n: number): string[] {
  if (n === 0) return [];
  if (sep === '') {
    const chars = cps(s);
    if (n < 0 || n >= chars.length) return chars;
    return [...chars.slice(0, n - 1), chars.slice(n - 1).join('')];
  }
  const parts = s.split(sep);
  if (n < 0 || parts.length <= n) return parts;
  return [...parts.slice(0, n - 1), parts.slice(n - 1).join(sep)];
}

function goReplace(s: string, old: string, rep: string, n: number): string {
  if (n === 0 || old === rep) return s;
  if (old === '') {
    const chars = cps(s);
    const out: string[] = [];
    let count = 0;
    for (let i = 0; i <= chars.length; i++) {
      if (n < 0 || count < n) {
        out.push(rep);
        count++;
      }
      if (i < chars.length) out.push(chars[i]);
    }
    return out.join('');
  }
  let out = '';
  let rest = s;
  let count = 0;
  for (;;) {
    if (n >= 0 && count >= n) break;
    const i = rest.indexOf(old);
    if (i < 0) break;
    out += rest.slice(0, i) + rep;
    rest = rest.slice(i + old.length);
    count++;
  }
  return out + rest;
}

export function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    switch (ch) {
      case '\\': out += '\\\\'; break;
      case '"': out += '\\"'; break;
      case '\n': out += '\\n'; break;
      case '\r': out += '\\r'; break;
      case '\t': out += '\\t'; break;
      case '\b': out += '\\b'; break;
      case '\f': out += '\\f'; break;
      case '\v': out += '\\v'; break;
      case '\x07': out += '\\a'; break;
      default:
        out += c < 0x20 || c === 0x7f ? `\\x${c.toString(16).padStart(2, '0')}` : ch;
    }
  }
  return `${out}"`;
}

function formatValue(v: unknown, verb: string, precision: number | undefined): string {
  const num = (x: unknown): number | bigint => {
    if (typeof x === 'bigint' || typeof x === 'number') return x;
    if (x !== null && typeof x === 'object' && 'valueOf' in x) {
      const p = (x as { valueOf(): unknown }).valueOf();
      if (typeof p === 'bigint') return p;
    }
    throw celError(`error during formatting: ${verb} requires a number`);
  };
  switch (verb) {
    case 's':
      return stringify(v);
    case 'd': {
      const n = num(v);
      if (typeof n === 'number') {
        if (Number.isNaN(n)) return 'NaN';
        if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
        throw celError('error during formatting: decimal clause can only be used on integers');
      }
      return n.toString();
    }
    case 'f':
    case 'e': {
      const n = Number(num(v));
      if (Number.isNaN(n)) return 'NaN';
      if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
      const p = precision ?? 6;
      if (verb === 'f') return toFixedHalfEven(n, p);
      return n.toExponential(p).replace(/e([+-])(\d)$/, 'e$10$2');
    }
    case 'b':
    case 'o':
    case 'x':
    case 'X': {
      const radix = verb === 'b' ? 2 : verb === 'o' ? 8 : 16;
      if (typeof v === 'string' && (verb === 'x' || verb === 'X')) {
        const hex = Buffer.from(v, 'utf8').toString('hex');
        return verb === 'X' ? hex.toUpperCase() : hex;
      }
      if (v instanceof Uint8Array && (verb === 'x' || verb === 'X')) {
        const hex = Buffer.from(v).toString('hex');
        return verb === 'X' ? hex.toUpperCase() : hex;
      }
      if (typeof v === 'boolean' && verb === 'b') return v ? '1' : '0';
      const n = num(v);
      // Go's fmt (cel-go) has no hex/octal/binary clause for doubles
      if (typeof n === 'number') throw celError(`error during formatting: only integers, byte buffers, and strings can be formatted as ${verb}`);
      const out = n.toString(radix);
      return verb === 'X' ? out.toUpperCase() : out;
    }
    default:
      throw celError(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
  }
}

function stringify(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'NaN';
    if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
    return String(v);
  }
  if (v === null) return 'null';
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  if (v instanceof Date) return timestampString(v);
  if (v instanceof Duration) return durationString(v);
  if (Array.isArray(v)) return `[${v.map(nestedLiteral).join(', ')}]`;
  const entries = mapEntries(v);
  if (entries) {
    // cel-go's legacy formatter (strings extension before version 4, which Kubernetes pins) sorts the
    // entries by their printed key and joins key and value with a bare ':'
    const printed = entries.map(([k, x]) => [nestedLiteral(k), nestedLiteral(x)] as const);
    printed.sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return `{${printed.map(([k, x]) => `${k}:${x}`).join(', ')}}`;
  }
  const typeName = /^Type<(.+)>$/.exec(String(v));
  if (typeName) return typeName[1];
  return String(v);
}

function mapEntries(v: unknown): [unknown, unknown][] | undefined {
  if (v instanceof Map) return [...v.entries()];
  if (v !== null && typeof v === 'object' && v.constructor === Object) return Object.entries(v);
  return undefined;
}

/** Go's `%.6f`, which the legacy formatter applies to doubles inside lists and maps. */
function goFixed6(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  // toFixed switches to exponent notation from 1e21; such doubles are integers, printed exactly
  if (Math.abs(n) >= 1e21) return `${BigInt(n)}.000000`;
  return toFixedHalfEven(n, 6);
}

/**
 * An element of a list or map under `%s`, printed as cel-go's legacy formatter does: strings
 * quoted, bytes as `b"..."`, doubles as `%.6f` (quoted when not finite), timestamps and durations
 * as `timestamp("...")` / `duration("...")`.
 */
function nestedLiteral(v: unknown): string {
  if (typeof v === 'string') return quote(v);
  if (v instanceof Uint8Array) return `b${quote(Buffer.from(v).toString('utf8'))}`;
  if (typeof v === 'number') return Number.isFinite(v) ? goFixed6(v) : quote(goFixed6(v));
  if (v instanceof Date) return `timestamp(${quote(timestampString(v))})`;
  if (v instanceof Duration) return `duration(${quote(durationString(v))})`;
  return stringify(v);
}

/** Fixed-point with Go's rounding: exact ties go to the even digit (`%.0f` of 2.5 is "2"), unlike toFixed. */
function toFixedHalfEven(n: number, p: number): string {
  const scale = 10 ** p;
  const scaled = Math.abs(n) * scale;
  if (p <= 15 && Number.isFinite(scaled) && scaled - Math.floor(scaled) === 0.5) {
    const even = Math.floor(scaled) % 2 === 0 ? Math.floor(scaled) : Math.floor(scaled) + 1;
    return `${n < 0 ? '-' : ''}${(even / scale).toFixed(p)}`;
  }
  return n.toFixed(p);
}

export function celFormat(fmt: string, args: unknown[]): string {
  let out = '';
  let argi = 0;
  for (let i = 0; i < fmt.length; i++) {
    const ch = fmt[i];
    if (ch !== '%') {
      out += ch;
      continue;
    }
    i++;
    if (fmt[i] === '%') {
      out += '%';
      continue;
    }
    let precision: number | undefined;
    if (fmt[i] === '.') {
      let j = i + 1;
      while (j < fmt.length && fmt[j] >= '0' && fmt[j] <= '9') j++;
      precision = Number(fmt.slice(i + 1, j));
      i = j;
    }
    const verb = fmt[i];
    if (verb === undefined) throw celError('could not parse formatting clause: unexpected end of string');
    if (argi >= args.length) throw celError(`index ${argi} out of range`);
    out += formatValue(args[argi++], verb, precision);
  }
  return out;
}

export function stringsLibrary(r: CelRegistrar): void {
  r.fn('string.charAt(int): string', ((s: string, i: bigint) => {
    const a = cps(s);
    const n = Number(i);
    if (n < 0 || n > a.length) throw celError(`index out of range: ${n}`);
    return a[n] ?? '';
  }) as never);
  r.fn('string.replace(string, string): string', ((s: string, o: string, n: string) => {
    chargeCost(traversalCost(s.length));
    return goReplace(s, o, n, -1);
  }) as never);
  r.fn('string.replace(string, string, int): string', ((s: string, o: string, n: string, c: bigint) => {
    chargeCost(traversalCost(s.length));
    return goReplace(s, o, n, Number(c));
  }) as never);
  r.fn('string.reverse(): string', ((s: string) => cps(s).reverse().join('')) as never);
  r.fn('string.format(list): string', ((s: string, args: unknown[]) => {
    chargeCost(traversalCost(s.length));
    return celFormat(s, args);
  }) as never);
  const ns = r.namespace('strings');
  r.fn(`${ns}.quote(string): string`, ((_ns: unknown, s: string) => quote(s)) as never);

  const str = (v: unknown, name: string): string => {
    if (typeof v !== 'string') throw celError(`found no matching overload for '${name}'`);
    return v;
  };
  r.override('lowerAscii', 0, true, { handler: ([s]) => ASCII_LOWER(str(s, 'lowerAscii')) });
  r.override('upperAscii', 0, true, { handler: ([s]) => ASCII_UPPER(str(s, 'upperAscii')) });
  r.override('trim', 0, true, { handler: ([s]) => str(s, 'trim').replace(TRIM_RE, '') });
  r.override('indexOf', 1, true, {
    handler: ([s, sub]) => (Array.isArray(s) ? listIndexOf(s, sub) : indexOfCp(str(s, 'indexOf'), str(sub, 'indexOf'))),
  });
  r.override('indexOf', 2, true, {
    handler: ([s, sub, from]) => indexOfCp(str(s, 'indexOf'), str(sub, 'indexOf'), toIndex(from, 'indexOf')),
  });
  r.override('lastIndexOf', 1, true, {
    handler: ([s, sub]) => (Array.isArray(s) ? listLastIndexOf(s, sub) : lastIndexOfCp(str(s, 'lastIndexOf'), str(sub, 'lastIndexOf'))),
  });
  r.override('lastIndexOf', 2, true, {
    handler: ([s, sub, from]) => lastIndexOfCp(str(s, 'lastIndexOf'), str(sub, 'lastIndexOf'), toIndex(from, 'lastIndexOf')),
  });
  r.override('substring', 1, true, {
    handler: ([s, a]) => {
      const c = cps(str(s, 'substring'));
      const i = toIndex(a, 'substring');
      if (i < 0 || i > c.length) throw celError(`index out of range: ${i}`);
      return c.slice(i).join('');
    },
  });
  r.override('substring', 2, true, {
    handler: ([s, a, b]) => {
      const c = cps(str(s, 'substring'));
      const i = toIndex(a, 'substring');
      const j = toIndex(b, 'substring');
      if (i < 0 || i > c.length) throw celError(`index out of range: ${i}`);
      if (j < 0 || j > c.length) throw celError(`index out of range: ${j}`);
      if (i > j) throw celError(`invalid substring range. start: ${i}, end: ${j}`);
      return c.slice(i, j).join('');
    },
  });
  r.override('split', 1, true, { handler: ([s, sep]) => goSplit(str(s, 'split'), str(sep, 'split'), -1) });
  r.override('split', 2, true, { handler: ([s, sep, n]) => goSplit(str(s, 'split'), str(sep, 'split'), toIndex(n, 'split')) });
}
