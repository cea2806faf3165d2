import type { RuleKind } from './types.ts';
import { fieldErr } from '../errors.ts';
import { SYNTAX_CHECKS, SYNTAX_DESCRIPTIONS, checkHttpsUrl, isSyntaxName, syntaxCel } from '../syntax.ts';
import { syntaxMessage } from './syntaxSample.ts';
import { stringParam } from './util.ts';

export const syntax: RuleKind = {
  kind: 'syntax',
  checkParams(p, node, env) {
    if (!isSyntaxName(p.syntax)) return `\`syntax\` must be one of ${Object.keys(SYNTAX_CHECKS).join(', ')}`;
    const t = env.resolve(node).type;
    if (t !== undefined && t !== 'string') return `syntax applies to strings, not ${t}`;
    if (p.allowEmpty !== undefined && typeof p.allowEmpty !== 'boolean') return '`allowEmpty` must be true or false';
    if (p.lowercase !== undefined && typeof p.lowercase !== 'boolean') return '`lowercase` must be true or false';
    return null;
  },
  compile(p) {
    const name = isSyntaxName(p.syntax) ? p.syntax : 'nonEmptyKey';
    const check = SYNTAX_CHECKS[name];
    const message = stringParam(p, 'message');
    if (name === 'httpsUrl') {
      return {
        check(v, _old, ctx) {
          if (typeof v !== 'string') return;
          const problems = checkHttpsUrl(v);
          if (problems.length === 0) return;
          const path = ctx.path();
          if (message) { ctx.add(fieldErr.invalid(path, v, message)); return; }
          for (const pr of problems) {
            ctx.add(pr.reason === 'FieldValueRequired' ? fieldErr.required(path, pr.detail) : fieldErr.invalid(path, pr.value, pr.detail));
          }
        },
      };
    }
    // allowEmpty: upstream skips the check for "" (e.g. storageClassName "" means no class).
    const allowEmpty = p.allowEmpty === true;
    // lowercase: upstream checks some names lowercased (CSI driver names, provisioners) and reports the value as given.
    const lowercase = p.lowercase === true;
    return {
      check(v, _old, ctx) {
        if (typeof v !== 'string' || (allowEmpty && v === '')) return;
        const problems = check(lowercase ? v.toLowerCase() : v);
        if (problems.length === 0) return;
        const path = ctx.path();
        if (message) ctx.add(fieldErr.invalid(path, v, message));
        else for (const m of problems) ctx.add(fieldErr.invalid(path, v, m));
      },
    };
  },
  toCel(p) {
    if (!isSyntaxName(p.syntax)) return { rule: null, reason: 'unknown syntax' };
    const expr = syntaxCel(p.syntax, p.lowercase === true ? 'self.lowerAscii()' : 'self');
    if (!expr) return { rule: null, reason: `CEL cannot express the ${p.syntax} syntax` };
    const rule = p.allowEmpty === true ? `self == '' || (${expr})` : expr;
    return { rule: { rule, message: stringParam(p, 'message') ?? syntaxMessage(p.syntax) } };
  },
  describe(p) {
    return isSyntaxName(p.syntax) ? `Must be ${SYNTAX_DESCRIPTIONS[p.syntax]}.` : 'Has a fixed syntax.';
  },
};
