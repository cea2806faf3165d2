import type { RuleKind } from './types.ts';
import { fieldErr } from '../errors.ts';
import { compareQuantity, quantitySign, quantityToString, tryParseQuantity, type Quantity } from '../../quantity/quantity.ts';

const NANO = 1_000_000_000n;
/** Upstream's validateBasicResource detail for a negative quantity. */
const BASIC_MESSAGE = 'must be a valid resource quantity';

/** Upstream's Quantity.Value(): whole units, rounded away from zero. */
function wholeUnits(q: Quantity): bigint {
  const whole = q.nanos / NANO;
  return q.nanos % NANO === 0n ? whole : q.nanos < 0n ? whole - 1n : whole + 1n;
}
import { celString, stringParam } from './util.ts';

interface Bound { q: Quantity; raw: string; op: 'gt' | 'ge' | 'le'; message: string }

function bounds(p: Record<string, unknown>): Bound[] {
  const out: Bound[] = [];
  const add = (key: string, op: Bound['op']) => {
    const raw = p[key];
    if (raw === undefined) return;
    const s = String(raw);
    const q = tryParseQuantity(s);
    if (!q) return;
    const message = op === 'gt'
      ? (quantitySign(q) === 0 ? 'must be greater than zero' : `must be greater than ${s}`)
      : op === 'ge' ? `must be greater than or equal to ${s}` : `must be less than or equal to ${s}`;
    out.push({ q, raw: s, op, message });
  };
  add('exclusiveMinimum', 'gt');
  add('minimum', 'ge');
  add('maximum', 'le');
  return out;
}

export const quantityRange: RuleKind = {
  kind: 'quantityRange',
  checkParams(p) {
    if (p.basic !== undefined && typeof p.basic !== 'boolean') return '`basic` must be true or false';
    let any = p.basic === true;
    for (const k of ['exclusiveMinimum', 'minimum', 'maximum']) {
      if (p[k] === undefined) continue;
      any = true;
      if ((typeof p[k] !== 'string' && typeof p[k] !== 'number') || !tryParseQuantity(String(p[k]))) return `\`${k}\` must be a quantity`;
    }
    return any ? null : 'give at least one of `basic`, `exclusiveMinimum`, `minimum`, `maximum`';
  },
  compile(p) {
    const bs = bounds(p);
    const message = stringParam(p, 'message');
    const basic = p.basic === true;
    return {
      check(v, _old, ctx) {
        if (typeof v !== 'string' && typeof v !== 'number') return;
        const q = tryParseQuantity(String(v));
        if (!q) return; // malformed quantities are reported by the format check
        // validateBasicResource shows the value as whole units (an int64, unquoted).
        if (basic && quantitySign(q) < 0) ctx.add(fieldErr.invalid(ctx.path(), wholeUnits(q), BASIC_MESSAGE));
        for (const b of bs) {
          const c = compareQuantity(q, b.q);
          const ok = b.op === 'gt' ? c > 0 : b.op === 'ge' ? c >= 0 : c <= 0;
          if (!ok) ctx.add(fieldErr.invalid(ctx.path(), quantityToString(q), message ?? b.message));
        }
      },
    };
  },
  toCel(p) {
    const bs = bounds(p);
    const op = { gt: (b: Bound) => `quantity(self).isGreaterThan(quantity(${celString(b.raw)}))`,
      ge: (b: Bound) => `!quantity(self).isLessThan(quantity(${celString(b.raw)}))`,
      le: (b: Bound) => `!quantity(self).isGreaterThan(quantity(${celString(b.raw)}))` };
    const checks = bs.map((b) => op[b.op](b));
    const messages = bs.map((b) => b.message);
    if (p.basic === true) {
      checks.unshift('!quantity(self).isLessThan(quantity("0"))');
      messages.unshift(BASIC_MESSAGE);
    }
    return { rule: { rule: checks.join(' && '), message: stringParam(p, 'message') ?? messages.join(', ') } };
  },
  describe(p) {
    const parts = bounds(p).map((b) => b.message);
    if (p.basic === true && parts.length === 0) return 'The quantity must not be negative.';
    return `The quantity ${parts.join(' and ')}${p.basic === true && !parts.some((m) => m.includes('zero')) ? ' and must not be negative' : ''}.`;
  },
};
