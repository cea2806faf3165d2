import type { RuleKind } from './types.ts';
import { fieldErr } from '../errors.ts';
import { isObject, stringParam } from './util.ts';

function empty(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (typeof v === 'string' || Array.isArray(v)) return v.length === 0;
  if (isObject(v)) return Object.keys(v).length === 0;
  return false;
}

export const nonEmpty: RuleKind = {
  kind: 'nonEmpty',
  checkParams(p, node, env) {
    if (p.message !== undefined && typeof p.message !== 'string') return '`message` must be a string';
    if (p.whenAbsent !== undefined && typeof p.whenAbsent !== 'boolean') return '`whenAbsent` must be true or false';
    const s = env.resolve(node);
    if (s.type !== undefined && s.type !== 'array' && s.type !== 'object' && s.type !== 'string') return `nonEmpty applies to lists, maps and strings, not ${s.type}`;
    return null;
  },
  compile(p) {
    const message = stringParam(p, 'message') ?? '';
    // whenAbsent: false checks only a value that is present ("if set, must not be empty").
    return {
      whenAbsent: p.whenAbsent !== false,
      check(v, _old, ctx) {
        if (empty(v)) ctx.add(fieldErr.required(ctx.path(), message));
      },
    };
  },
  toCel(p) {
    return { rule: { rule: 'self.size() > 0', message: stringParam(p, 'message') ?? 'must not be empty', reason: 'FieldValueRequired' } };
  },
  describe(p) {
    if (p.whenAbsent === false) return `Must not be empty when set${typeof p.message === 'string' ? ` (${p.message})` : ''}.`;
    return `Required and must not be empty${typeof p.message === 'string' ? ` (${p.message})` : ''}.`;
  },
};
