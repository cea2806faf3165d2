// `itemsAtParent`: a list of strings whose items upstream checks one by one but reports at the
// object holding the list, with the item as the value (validateCSINodeDriver's topologyKeys:
// `spec.drivers[0]: Required value`, `Duplicate value: "zone"`, `Invalid value: "bad key": ...`).
// Per item, in order: empty (Required, when `nonEmpty`), repeated (Duplicate, when `distinct`),
// then each message of `syntax`.
import type { RuleKind } from './types.ts';
import { fieldErr } from '../errors.ts';
import { SYNTAX_CHECKS, isSyntaxName, syntaxCel } from '../syntax.ts';
import { syntaxMessage } from './syntaxSample.ts';

/** The path of the object holding a field: `spec.drivers[0].topologyKeys` -> `spec.drivers[0]`. */
function parentPath(path: string): string {
  const dot = path.lastIndexOf('.');
  return dot < 0 ? '' : path.slice(0, dot);
}

export const itemsAtParent: RuleKind = {
  kind: 'itemsAtParent',
  checkParams(p, node, env) {
    if (p.syntax !== undefined && !isSyntaxName(p.syntax)) return `\`syntax\` must be one of ${Object.keys(SYNTAX_CHECKS).join(', ')}`;
    for (const k of ['nonEmpty', 'distinct']) if (p[k] !== undefined && typeof p[k] !== 'boolean') return `\`${k}\` must be true or false`;
    if (p.syntax === undefined && p.nonEmpty !== true && p.distinct !== true) return 'give at least one of `syntax`, `nonEmpty`, `distinct`';
    const s = env.resolve(node);
    if (s.type !== undefined && s.type !== 'array') return 'itemsAtParent applies to a list of strings';
    return null;
  },
  compile(p) {
    const check = isSyntaxName(p.syntax) ? SYNTAX_CHECKS[p.syntax] : undefined;
    const nonEmpty = p.nonEmpty === true;
    const distinct = p.distinct === true;
    return {
      check(v, _old, ctx) {
        if (!Array.isArray(v) || v.length === 0) return;
        const at = parentPath(ctx.path());
        const seen = new Set<string>();
        for (const item of v) {
          if (typeof item !== 'string') continue;
          if (nonEmpty && item === '') ctx.add(fieldErr.required(at));
          if (distinct) {
            if (seen.has(item)) ctx.add(fieldErr.duplicate(at, item));
            else seen.add(item);
          }
          if (check) for (const msg of check(item)) ctx.add(fieldErr.invalid(at, item, msg));
        }
      },
    };
  },
  toCel(p) {
    const parts: string[] = [];
    const msgs: string[] = [];
    if (p.nonEmpty === true) { parts.push("self.all(x, x != '')"); msgs.push('items must not be empty'); }
    if (p.distinct === true) { parts.push('self.all(x, self.exists_one(y, y == x))'); msgs.push('items must be unique'); }
    if (isSyntaxName(p.syntax)) {
      const expr = syntaxCel(p.syntax, 'x');
      if (expr) { parts.push(`self.all(x, ${expr})`); msgs.push(syntaxMessage(p.syntax)); }
    }
    if (parts.length === 0) return { rule: null, reason: `CEL cannot express the ${String(p.syntax)} syntax` };
    return { rule: { rule: parts.join(' && '), message: msgs.join('; ') } };
  },
  describe(p) {
    const parts = [p.nonEmpty === true ? 'non-empty' : '', p.distinct === true ? 'unique' : '', isSyntaxName(p.syntax) ? `each ${p.syntax}` : ''].filter(Boolean);
    return `Items must be ${parts.join(', ')}.`;
  },
};
