import type { RuleKind } from './types.ts';
import { fieldErr, childPath } from '../errors.ts';
import {
  celHas, celLiteral, celSelect, celString, checkFields, deepEqual, getPath, hasOwn, isObject, propertyAt, quoteFields,
  stringList, stringParam,
} from './util.ts';

/** Go's encoding/json error for a value that is not a JSON object (approximate wording). */
function jsonProblem(text: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const t = text.trimStart();
    if (t === '') return 'unexpected end of JSON input';
    const c = t[0];
    for (const lit of ['null', 'true', 'false']) {
      if (c !== lit[0]) continue;
      for (let i = 1; i < lit.length; i++) {
        if (i >= t.length) return 'unexpected end of JSON input';
        if (t[i] !== lit[i]) return `invalid character '${t[i]}' in literal ${lit} (expecting '${lit[i]}')`;
      }
      return `invalid character '${t[lit.length]}' after top-level value`;
    }
    if (!/[[{"\-0-9]/.test(c)) return `invalid character '${c}' looking for beginning of value`;
    return 'unexpected end of JSON input';
  }
  if (isObject(parsed)) return null;
  const kind = Array.isArray(parsed) ? 'array' : parsed === null ? null : typeof parsed;
  return kind === null ? null : `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
}

/** Where a key's error is reported (built only for an error: the valid path builds no path). */
function keyPath(ctx: { path(): string }, map: string, reportAt: string | undefined, k: string): string {
  return reportAt ? childPath(ctx.path(), reportAt) : `${childPath(ctx.path(), map)}[${k}]`;
}

function decode(v: string, bytes: boolean): string {
  return bytes ? Buffer.from(v, 'base64').toString('utf8') : v;
}

export const requiredKeysWhen: RuleKind = {
  kind: 'requiredKeysWhen',
  checkParams(p, node, env) {
    if (p.field !== undefined && typeof p.field !== 'string') return '`field` must be a field name';
    if (typeof p.field === 'string' && !('equals' in p)) return '`equals` is required with `field`';
    if (p.reportAt !== undefined && typeof p.reportAt !== 'string') return '`reportAt` must be a relative path';
    if (typeof p.map !== 'string') return '`map` (the map field) is required';
    const keys = stringList(p, 'keys');
    if (!keys || keys.length === 0) return '`keys` must be a non-empty list';
    if (p.mode !== undefined && p.mode !== 'all' && p.mode !== 'any') return '`mode` must be `all` or `any`';
    return checkFields(node, typeof p.field === 'string' ? [p.field, p.map] : [p.map], env);
  },
  compile(p, node, env) {
    const field = typeof p.field === 'string' ? p.field : null;
    const equals = p.equals;
    const map = p.map as string;
    const reportAt = stringParam(p, 'reportAt');
    const keys = stringList(p, 'keys') ?? [];
    const any = p.mode === 'any';
    const nonEmpty = p.nonEmpty === true;
    const json = p.json === true;
    const ms = propertyAt(node, map, env);
    const bytes = !!ms && typeof ms.additionalProperties === 'object' && ms.additionalProperties.format === 'byte';
    const message = stringParam(p, 'message') ?? '';
    return {
      check(v, _old, ctx) {
        if (!isObject(v) || (field !== null && !deepEqual(getPath(v, field), equals))) return;
        const m = getPath(v, map);
        const mo = isObject(m) ? m : {};
        const present = keys.filter((k) => hasOwn(mo, k));
        if (any ? present.length === 0 : present.length < keys.length) {
          for (const k of keys) if (!hasOwn(mo, k)) ctx.add(fieldErr.required(keyPath(ctx, map, reportAt, k), message));
          if (!any) { /* continue to check present keys */ } else return;
        }
        for (const k of present) {
          const val = mo[k];
          const text = typeof val === 'string' ? decode(val, bytes) : '';
          if (nonEmpty && text.length === 0) ctx.add(fieldErr.required(keyPath(ctx, map, reportAt, k), message));
          else if (json) {
            const problem = jsonProblem(text);
            if (problem) ctx.add(fieldErr.invalid(keyPath(ctx, map, reportAt, k), bytes ? '<secret contents redacted>' : val, problem));
          }
        }
      },
    };
  },
  toCel(p) {
    if (p.json === true) return { rule: null, reason: 'CEL cannot parse JSON' };
    const field = typeof p.field === 'string' ? p.field : null;
    const map = p.map as string;
    const keys = stringList(p, 'keys') ?? [];
    const m = celSelect('self', map);
    const one = (k: string) => `${celString(k)} in ${m}${p.nonEmpty === true ? ` && ${m}[${celString(k)}].size() > 0` : ''}`;
    const need = keys.map((k) => `(${one(k)})`).join(p.mode === 'any' ? ' || ' : ' && ');
    const cond = field === null ? 'false' : `${celHas('self', field)} && ${celSelect('self', field)} == ${celLiteral(p.equals)}`;
    const body = `${celHas('self', map)} && (${need})`;
    return {
      rule: {
        rule: field === null ? body : `!(${cond}) || (${body})`,
        message: stringParam(p, 'message') ?? `${map} must contain ${p.mode === 'any' ? 'one of' : ''} ${quoteFields(keys)}`.replace('  ', ' '),
        reason: 'FieldValueRequired',
      },
    };
  },
  describe(p) {
    const keys = stringList(p, 'keys') ?? [];
    const what = p.mode === 'any' ? `at least one of ${quoteFields(keys)}` : quoteFields(keys);
    const extra = [p.nonEmpty === true ? 'non-empty' : '', p.json === true ? 'valid JSON' : ''].filter(Boolean).join(' and ');
    const when = typeof p.field === 'string' ? `When \`${p.field}\` is ${JSON.stringify(p.equals)}, ` : '';
    const sentence = `\`${String(p.map)}\` must contain ${what}${extra ? ` (${extra})` : ''}.`;
    return when ? when + sentence : sentence.charAt(0).toUpperCase() === '`' ? sentence : sentence;
  },
};
