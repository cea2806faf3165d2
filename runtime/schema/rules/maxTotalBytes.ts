import type { Schema } from '../types.ts';
import type { RuleKind } from './types.ts';
import { fieldErr, childPath } from '../errors.ts';
import { checkFields, getPath, isObject, propertyAt, quoteFields, stringList, stringParam } from './util.ts';

function utf8(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** The decoded length of a base64 string (the byte count of a `format: byte` value). */
function base64Bytes(s: string): number {
  let pad = 0;
  if (s.endsWith('==')) pad = 2;
  else if (s.endsWith('=')) pad = 1;
  return Math.max(0, Math.floor((s.length * 3) / 4) - pad);
}

function isByteMap(s: Schema | undefined): boolean {
  return !!s && typeof s.additionalProperties === 'object' && s.additionalProperties.format === 'byte';
}

export const maxTotalBytes: RuleKind = {
  kind: 'maxTotalBytes',
  checkParams(p, node, env) {
    if (typeof p.limit !== 'number' || !Number.isInteger(p.limit) || p.limit < 0) return '`limit` must be a non-negative integer';
    if (p.fields !== undefined) {
      const fields = stringList(p, 'fields');
      if (!fields || fields.length === 0) return '`fields` must be a non-empty list of map fields';
      const bad = checkFields(node, fields, env);
      if (bad) return bad;
    } else if (typeof env.resolve(node).additionalProperties !== 'object') {
      return 'without `fields` the node itself must be a map (additionalProperties)';
    }
    if (p.reportAt !== undefined && typeof p.reportAt !== 'string') return '`reportAt` must be a relative path or `[]`';
    if (p.countKeys !== undefined && typeof p.countKeys !== 'boolean') return '`countKeys` must be a boolean';
    return null;
  },
  compile(p, node, env) {
    const limit = p.limit as number;
    const fields = stringList(p, 'fields');
    const countKeys = p.countKeys === true;
    const reportAt = stringParam(p, 'reportAt');
    const message = stringParam(p, 'message');
    const maps: { path: string | null; bytes: boolean }[] = fields
      ? fields.map((f) => ({ path: f, bytes: isByteMap(propertyAt(node, f, env)) }))
      : [{ path: null, bytes: isByteMap(env.resolve(node)) }];
    return {
      check(v, _old, ctx) {
        // A string's UTF-8 bytes lie between its UTF-16 length and three times it: bytes are
        // counted only when these bounds cannot decide (a 1 MB value is not counted byte by byte).
        let low = 0;
        let high = 0;
        for (const m of maps) {
          const map = m.path === null ? v : getPath(v, m.path);
          if (!isObject(map)) continue;
          for (const k of Object.keys(map)) {
            if (countKeys) { low += k.length; high += 3 * k.length; }
            const val = map[k];
            if (typeof val !== 'string') continue;
            const b = m.bytes ? base64Bytes(val) : -1;
            low += b >= 0 ? b : val.length;
            high += b >= 0 ? b : 3 * val.length;
          }
        }
        if (high <= limit) return;
        let total = low;
        if (low <= limit) {
          total = 0;
          for (const m of maps) {
            const map = m.path === null ? v : getPath(v, m.path);
            if (!isObject(map)) continue;
            for (const k of Object.keys(map)) {
              if (countKeys) total += utf8(k);
              const val = map[k];
              if (typeof val === 'string') total += m.bytes ? base64Bytes(val) : utf8(val);
            }
          }
        }
        if (total <= limit) return;
        const base = ctx.path();
        const at = reportAt === '[]' ? '[]' : reportAt ? childPath(base, reportAt) : base === '' ? '[]' : base;
        if (message) ctx.add({ field: at, reason: 'FieldValueTooLong', message: `Too long: ${message}` });
        else ctx.add(fieldErr.tooLong(at, limit));
      },
    };
  },
  toCel() {
    return { rule: null, reason: 'CEL has no sum over the values of a map, so a total size cannot be expressed' };
  },
  describe(p) {
    const fields = stringList(p, 'fields');
    const what = fields ? `the values of ${quoteFields(fields)}` : 'the values';
    return `The total size of ${what}${p.countKeys === true ? ' and their keys' : ''} may not exceed ${String(p.limit)} bytes.`;
  },
};
