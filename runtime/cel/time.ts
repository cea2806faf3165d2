// Timestamps and durations at nanosecond precision (the engine keeps milliseconds): arithmetic,
// ordering, RFC 3339 parsing and range checks. Separate because equality, the evaluation wrappers
// and the time library all need it, as cel-go keeps it in common/types/timestamp.go and duration.go.

import { celError, Duration } from './values.ts';

// The engine types JS `Date` values as google.protobuf.Timestamp (by exact constructor), so a
// timestamp stays a `Date` holding the millisecond floor of its instant; the nanoseconds below the
// millisecond (0..999999) ride along on a symbol property. Every operation where the sub-millisecond
// part matters (==, <, +, -, in, string(), timestamp(string)) is handled by this layer, not the engine.

const SUB_MS_NANOS = Symbol('cel.subMillisecondNanos');
const NANOS_PER_MS = 1_000_000n;
const NANOS_PER_S = 1_000_000_000n;

/** Nanoseconds below the millisecond of a timestamp (0..999999). */
export function subMillisecondNanos(d: Date): number {
  return (d as unknown as Record<symbol, number | undefined>)[SUB_MS_NANOS] ?? 0;
}

/** Nanoseconds since the Unix epoch. */
export function timestampNanos(d: Date): bigint {
  return BigInt(d.getTime()) * NANOS_PER_MS + BigInt(subMillisecondNanos(d));
}

/** A timestamp from nanoseconds since the Unix epoch. */
export function timestampFromNanos(total: bigint): Date {
  let ms = total / NANOS_PER_MS;
  let sub = total % NANOS_PER_MS;
  if (sub < 0n) {
    ms -= 1n;
    sub += NANOS_PER_MS;
  }
  const d = new Date(Number(ms));
  if (sub !== 0n) Object.defineProperty(d, SUB_MS_NANOS, { value: Number(sub), enumerable: false });
  return d;
}

/** Total nanoseconds of a duration. */
export function durationNanos(d: Duration): bigint {
  return BigInt(d.seconds) * NANOS_PER_S + BigInt(Math.trunc(d.nanos));
}

/** A duration from total nanoseconds, seconds and nanos sharing the sign (as protobuf and cel-go). */
export function durationFromNanos(total: bigint): Duration {
  return new Duration(total / NANOS_PER_S, Number(total % NANOS_PER_S));
}

/** -1, 0, 1 for two timestamps or two durations; undefined for other operands. */
export function compareTime(a: unknown, b: unknown): number | undefined {
  let x: bigint;
  let y: bigint;
  if (a instanceof Date && b instanceof Date) [x, y] = [timestampNanos(a), timestampNanos(b)];
  else if (a instanceof Duration && b instanceof Duration) [x, y] = [durationNanos(a), durationNanos(b)];
  else return undefined;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** `+`/`-` over timestamps and durations at nanosecond precision; undefined for other operands. */
export function timeArithmetic(op: '+' | '-', l: unknown, r: unknown): unknown {
  const sign = op === '+' ? 1n : -1n;
  if (l instanceof Date) {
    if (r instanceof Duration) return timestampFromNanos(timestampNanos(l) + sign * durationNanos(r));
    if (r instanceof Date && op === '-') return durationFromNanos(timestampNanos(l) - timestampNanos(r));
    return undefined;
  }
  if (l instanceof Duration) {
    if (r instanceof Duration) return durationFromNanos(durationNanos(l) + sign * durationNanos(r));
    if (r instanceof Date && op === '+') return timestampFromNanos(timestampNanos(r) + durationNanos(l));
  }
  return undefined;
}

const RFC3339_PARTS =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|([+-])(\d{2}):(\d{2})))?$/;

/**
 * RFC 3339 timestamp with up to nanosecond precision (further fractional digits are truncated, as
 * Go's time.Parse does). `strict` (the CEL `timestamp()` function) requires `T`, `Z` and the time of
 * day; otherwise a lowercase `t`/`z`, a space separator and a bare date (midnight UTC) are accepted.
 */
export function parseRfc3339(s: string, strict: boolean): Date | undefined {
  const m = RFC3339_PARTS.exec(s);
  if (!m) return undefined;
  if (strict && (m[4] === undefined || !s.includes('T') || m[8] === 'z')) return undefined;
  const [year, month, day, hour = 0, min = 0, sec = 0] = m.slice(1, 7).map((x) => (x === undefined ? 0 : Number(x)));
  const daysInMonth = new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeapYear(year) ? 1 : 0);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || min > 59 || sec > 59) return undefined;
  let offsetMin = 0;
  if (m[9] !== undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const base = new Date(0);
  base.setUTCFullYear(year, month - 1, day);
  base.setUTCHours(hour, min, sec, 0);
  const ms = base.getTime() - offsetMin * 60_000;
  const frac = BigInt((m[7] ?? '').slice(0, 9).padEnd(9, '0'));
  return timestampFromNanos(BigInt(ms) * NANOS_PER_MS + frac);
}

function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/** Go's time.Duration range (int64 nanoseconds), which cel-go durations are bound to. */
const MAX_DURATION_NANOS = 9223372036854775807n;
const MIN_TIMESTAMP_MS = -62135596800000;
const MAX_TIMESTAMP_MS = 253402300799999;

/** CEL range errors for timestamps outside 0001..9999 and durations outside Go's int64 nanoseconds. */
export function checkTimeRange(v: unknown): unknown {
  if (v instanceof Date) {
    const t = v.getTime();
    if (!(t >= MIN_TIMESTAMP_MS && t <= MAX_TIMESTAMP_MS)) throw celError('timestamp out of range');
  } else if (v instanceof Duration) {
    const total = BigInt(v.seconds) * 1_000_000_000n + BigInt(Math.trunc(v.nanos));
    if (total > MAX_DURATION_NANOS || total < -MAX_DURATION_NANOS) throw celError('duration out of range');
  }
  return v;
}
