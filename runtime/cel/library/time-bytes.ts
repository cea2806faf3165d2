// Standard-library overloads the engine lacks or gets wrong for timestamps, durations and bytes,
// all reachable from schema values (date-time, duration and byte formats):
// string()/int() of timestamps, string() of durations, identity conversions,
// time-zone arguments given as fixed offsets (`'+11:00'`), bytes ordering (range checks: engine.ts).

import type { CelRegistrar } from '../registrar.ts';
import { checkTimeRange, durationNanos, parseRfc3339, subMillisecondNanos } from '../time.ts';
import { celError, Duration } from '../values.ts';

const TS = 'google.protobuf.Timestamp';
const DUR = 'google.protobuf.Duration';

/** RFC 3339 with Go's RFC3339Nano trimming of trailing fractional zeros (what cel-go prints). */
export function timestampString(d: Date): string {
  const frac = `${String(d.getUTCMilliseconds()).padStart(3, '0')}${String(subMillisecondNanos(d)).padStart(6, '0')}`.replace(/0+$/, '');
  return d.toISOString().replace(/\.\d*Z$/, frac ? `.${frac}Z` : 'Z');
}

/** CEL `timestamp(x)`: RFC 3339 strings to the nanosecond, Unix seconds, or a timestamp itself. */
function toTimestamp(v: unknown): Date {
  if (v instanceof Date) return v;
  if (typeof v === 'bigint') return checkTimeRange(new Date(Number(v) * 1000)) as Date;
  if (typeof v !== 'string') throw celError('no such overload: timestamp()');
  const d = parseRfc3339(v, true);
  if (!d) throw celError(`timestamp() requires a string in RFC 3339 format: ${JSON.stringify(v)}`);
  return checkTimeRange(d) as Date;
}

/** `1.5s`, `-0.000000001s`, `0s`: seconds with the fraction trimmed, as cel-go prints durations. */
export function durationString(d: Duration): string {
  const total = durationNanos(d);
  const neg = total < 0n;
  const abs = neg ? -total : total;
  const secs = abs / 1_000_000_000n;
  const frac = (abs % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${secs}${frac ? `.${frac}` : ''}s`;
}

const OFFSET = /^([+-])?(\d{2}):(\d{2})$/;

/** Offset of a time zone (IANA name or `[+-]HH:MM`) from UTC at `at`, in minutes. */
export function zoneOffsetMinutes(tz: string, at: Date): number {
  const m = OFFSET.exec(tz);
  if (m) return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
  let name: string | undefined;
  try {
    name = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'longOffset' })
      .formatToParts(at)
      .find((p) => p.type === 'timeZoneName')?.value;
  } catch {
    throw celError(`invalid time zone: ${tz}`);
  }
  const o = /^GMT(?:([+-])(\d{2}):(\d{2}))?$/.exec(name ?? '');
  if (!o) throw celError(`invalid time zone: ${tz}`);
  return o[1] ? (o[1] === '-' ? -1 : 1) * (Number(o[2]) * 60 + Number(o[3])) : 0;
}

/** The wall-clock fields of `d` in zone `tz`, read through the UTC getters of a shifted Date. */
function inZone(d: Date, tz: string): Date {
  return new Date(d.getTime() + zoneOffsetMinutes(tz, d) * 60_000);
}

const ZONED: Record<string, (z: Date) => number> = {
  getDate: (z) => z.getUTCDate(),
  getDayOfMonth: (z) => z.getUTCDate() - 1,
  getDayOfWeek: (z) => z.getUTCDay(),
  getDayOfYear: (z) => Math.round((Date.UTC(z.getUTCFullYear(), z.getUTCMonth(), z.getUTCDate()) - Date.UTC(z.getUTCFullYear(), 0, 1)) / 86_400_000),
  getFullYear: (z) => z.getUTCFullYear(),
  getHours: (z) => z.getUTCHours(),
  getMilliseconds: (z) => z.getUTCMilliseconds(),
  getMinutes: (z) => z.getUTCMinutes(),
  getMonth: (z) => z.getUTCMonth(),
  getSeconds: (z) => z.getUTCSeconds(),
};

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

export function timeBytesLibrary(r: CelRegistrar): void {
  r.fn(`string(${TS}): string`, timestampString as never);
  r.fn(`string(${DUR}): string`, durationString as never);
  r.fn(`int(${TS}): int`, ((d: Date) => BigInt(Math.floor(d.getTime() / 1000))) as never);
  r.fn(`timestamp(${TS}): ${TS}`, ((d: Date) => d) as never);
  r.override('timestamp', 1, false, { handler: ([v]) => toTimestamp(v) });
  r.fn(`duration(${DUR}): ${DUR}`, ((d: Duration) => d) as never);
  for (const [name, get] of Object.entries(ZONED))
    r.override(name, 1, true, {
      handler: ([d, tz]) => {
        if (!(d instanceof Date) || typeof tz !== 'string') throw celError(`no such overload: ${name}`);
        return BigInt(get(inZone(d, tz)));
      },
    });
  const ops: [string, (c: number) => boolean][] = [['<', (c) => c < 0], ['<=', (c) => c <= 0], ['>', (c) => c > 0], ['>=', (c) => c >= 0]];
  for (const [op, test] of ops) r.operator(`bytes ${op} bytes`, ((a: Uint8Array, b: Uint8Array) => test(compareBytes(a, b))) as never);
}
