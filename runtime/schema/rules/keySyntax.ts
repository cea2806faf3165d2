import type { RuleKind } from './types.ts';
import { fieldErr } from '../errors.ts';
import { SYNTAX_CHECKS, SYNTAX_DESCRIPTIONS, isSyntaxName, syntaxCel } from '../syntax.ts';
import { syntaxMessage } from './syntaxSample.ts';
import { isObject, stringParam } from './util.ts';

export const keySyntax: RuleKind = {
  kind: 'keySyntax',
  checkParams(p, node, env) {
    if (!isSyntaxName(p.syntax)) return `\`syntax\` must be one of ${Object.keys(SYNTAX_CHECKS).join(', ')}`;
    const s = env.resolve(node);
    if (typeof s.additionalProperties !== 'object' && s.additionalProperties !== true && !s['x-cluster-preserve-unknown-fields']) {
      return 'keySyntax applies to a map (a schema with additionalProperties)';
    }
    return null;
  },
  compile(p) {
    const name = isSyntaxName(p.syntax) ? p.syntax : 'nonEmptyKey';
    const check = SYNTAX_CHECKS[name];
    const message = stringParam(p, 'message');
    return {
      check(v, _old, ctx) {
        if (!isObject(v)) return;
        let base: string | null = null;
        for (const k of Object.keys(v)) {
          const problems = check(k);
          if (problems.length === 0) continue;
          base ??= ctx.path();
          if (message) ctx.add(fieldErr.invalid(`${base}[${k}]`, k, message));
          else for (const m of problems) ctx.add(fieldErr.invalid(`${base}[${k}]`, k, m));
        }
      },
    };
  },
  toCel(p) {
    if (!isSyntaxName(p.syntax)) return { rule: null, reason: 'unknown syntax' };
    const expr = syntaxCel(p.syntax, 'k');
    if (!expr) return { rule: null, reason: `CEL cannot express the ${p.syntax} syntax` };
    return { rule: { rule: `self.all(k, ${expr})`, message: stringParam(p, 'message') ?? syntaxMessage(p.syntax) } };
  },
  describe(p) {
    return isSyntaxName(p.syntax) ? `Each key must be ${SYNTAX_DESCRIPTIONS[p.syntax]}.` : 'Keys have a fixed syntax.';
  },
};
