// `int64String`: a string that holds a base-10 int64, read as upstream reads it with Go's
// strconv.ParseInt(s, 10, 64) (StorageVersionMigration's status.resourceVersion). An empty string
// is unset and passes. A value ParseInt refuses is `Invalid value: "<s>": <parseMessage> "<s>":
// strconv.ParseInt: parsing "<s>": invalid syntax` (or `value out of range`); a parsed value below
// `minimum` shows the integer, as ValidateNonnegativeField does (`Invalid value: -5: must be greater
// than or equal to 0`).
import type { RuleKind } from './types.ts';
import { fieldErr } from '../errors.ts';
import { celString, stringParam } from './util.ts';

const MAX_UINT64 = (1n << 64n) - 1n;
const INT64_CUTOFF = 1n << 63n;

/** strconv.ParseInt(s, 10, 64): the value, or the error ParseInt's NumError ends with. */
export function parseGoInt64(s: string): { value: bigint } | { error: 'invalid syntax' | 'value out of range' } {
  let digits = s;
  const neg = s.startsWith('-');
  if (neg || s.startsWith('+')) digits = s.slice(1);
  if (digits === '') return { error: 'invalid syntax' };
  let n = 0n;
  // as ParseUint: each byte is checked for a digit, then for overflow, so an overflow ends the scan
  for (let i = 0; i < digits.length; i++) {
    const c = digits.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return { error: 'invalid syntax' };
    n = n * 10n + BigInt(c - 0x30);
    if (n > MAX_UINT64) return { error: 'value out of range' };
  }
  if (!neg && n >= INT64_CUTOFF) return { error: 'value out of range' };
  if (neg && n > INT64_CUTOFF) return { error: 'value out of range' };
  return { value: neg ? -n : n };
}

function minimumOf(p: Record<string, unknown>): bigint | null {
  return typeof p.minimum === 'number' && Number.isSafeInteger(p.minimum) ? BigInt(p.minimum) : null;
}

export const int64String: RuleKind = {
  kind: 'int64String',
  checkParams(p, node, env) {
    if (typeof p.parseMessage !== 'string' || p.parseMessage === '') return '`parseMessage` must say what failed to parse (`failed to parse resource version`)';
    if (p.minimum !== undefined && !(typeof p.minimum === 'number' && Number.isSafeInteger(p.minimum))) return '`minimum` must be an integer';
    const s = env.resolve(node);
    if (s.type !== undefined && s.type !== 'string') return `int64String applies to strings, not ${s.type}`;
    return null;
  },
  compile(p) {
    const parseMessage = String(p.parseMessage);
    const minimum = minimumOf(p);
    return {
      check(v, _old, ctx) {
        if (typeof v !== 'string' || v === '') return;
        const parsed = parseGoInt64(v);
        if ('error' in parsed) {
          const quoted = JSON.stringify(v);
          ctx.add(fieldErr.invalid(ctx.path(), v, `${parseMessage} ${quoted}: strconv.ParseInt: parsing ${quoted}: ${parsed.error}`));
        } else if (minimum !== null && parsed.value < minimum) {
          ctx.add(fieldErr.invalid(ctx.path(), parsed.value, `must be greater than or equal to ${minimum}`));
        }
      },
    };
  },
  toCel(p) {
    // CEL's int() overflows beyond int64: the lowering takes at most 18 digits as a number
    const minimum = minimumOf(p);
    const syntaxOk = `self.matches('^[+-]?[0-9]+$')`;
    const inRange = minimum === null ? 'true' : `(self.matches('^[+-]?[0-9]{1,18}$') && int(self) >= ${minimum})`;
    const parseText = (why: string): string => `${celString(`${String(p.parseMessage)} "`)} + self + '": strconv.ParseInt: parsing "' + self + ${celString(`": ${why}`)}`;
    return {
      rule: {
        rule: `self == '' || (${syntaxOk} && ${inRange})`,
        message: minimum === null ? 'must be an integer' : `must be an integer greater than or equal to ${minimum}`,
        messageExpression: `!${syntaxOk} ? ${parseText('invalid syntax')} : ${celString(minimum === null ? 'value out of range' : `must be greater than or equal to ${minimum}`)}`,
      },
    };
  },
  describe(p) {
    const minimum = minimumOf(p);
    return minimum === null ? 'An integer (base 10), or empty.' : `An integer (base 10) of at least ${minimum}, or empty.`;
  },
};
