import type { RuleKind } from './types.ts';
import { fieldErr } from '../errors.ts';
import { compareQuantity, quantitySign, quantityToString, tryParseQuantity, type Quantity } from '../../quantity/quantity.ts';
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
    let any = false;
    for (const k of ['exclusiveMinimum', 'minimum', 'maximum']) {
      if (p[k] === undefined) continue;
      any = true;
      if ((typeof p[k] !== 'string' && typeof p[k] !== 'number') || !tryParseQuantity(String(p[k]))) return `\`${k}\` must be a quantity`;
    }
    return any ? null : 'give at least one of `exclusiveMinimum`, `minimum`, `maximum`';
  },
  compile(p) {
    const bs = bounds(p);
    const message = stringParam(p, 'message');
    return {
      check(v, _old, ctx) {
        if (typeof v !== 'string' && typeof v !== 'number') return;
        const q = tryParseQuantity(String(v));
        if (!q) return; // malformed quantities are reported by the format check
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
    return { rule: { rule: bs.map((b) => op[b.op](b)).join(' && '), message: stringParam(p, 'message') ?? bs.map((b) => b.message).join(', ') } };
  },
  describe(p) {
    return `The quantity ${bounds(p).map((b) => b.message.replace(/^must be /, 'must be ')).join(' and ')}.`;
  },
};
