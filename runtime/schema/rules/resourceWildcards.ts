// `resourceWildcards`: a webhook rule's `resources` list ("pods", "pods/log", "pods/*", "*/scale",
// "*", "*/*") must not name what a wildcard item already covers, checked as upstream's
// validateResources (pkg/apis/admissionregistration/validation) does: one pass with two sets, each
// "x/y" after "x/*" or after "*/y" reported at its index with the item as value, then "*/*" with
// other items and "*" with plain resources reported at the list. The CEL form looks every item up
// in the list (quadratic) and reports the first problem at the list; built-in rules run natively.
import type { RuleKind } from './types.ts';
import { fieldErr } from '../errors.ts';

const DOUBLE_WILDCARD = "if '*/*' is present, must not specify other resources";
const SINGLE_WILDCARD = "if '*' is present, must not specify other resources without subresources";

// CEL pieces: `r`'s resource and subresource, and "an earlier item is the wildcard covering r".
const RES = "r.substring(0, r.indexOf('/'))";
const SUB = "r.substring(r.indexOf('/') + 1)";
const coveredBy = (wildcard: string): string =>
  `r.contains('/') && self.indexOf(${wildcard}) >= 0 && self.indexOf(${wildcard}) < self.lastIndexOf(r)`;
const UNDER_RESOURCE = coveredBy(`${RES} + '/*'`);
const UNDER_SUBRESOURCE = coveredBy(`'*/' + ${SUB}`);
const DOUBLE = "'*/*' in self && self.size() > 1";
// Upstream keeps only the last plain item's verdict ("pods", "*" passes; "*", "pods" does not).
const PLAIN = "self.filter(r, r != '' && !r.contains('/'))";
const SINGLE = `'*' in self && ${PLAIN}[${PLAIN}.size() - 1] != '*'`;

export const resourceWildcards: RuleKind = {
  kind: 'resourceWildcards',
  checkParams(_p, node, env) {
    const s = env.resolve(node);
    if (s.type !== undefined && s.type !== 'array') return 'resourceWildcards applies to lists of resource names';
    const items = s.items ? env.resolve(s.items) : undefined;
    if (items?.type !== undefined && items.type !== 'string') return 'resourceWildcards applies to lists of strings';
    return null;
  },
  compile() {
    return {
      check(v, _old, ctx) {
        if (!Array.isArray(v)) return;
        const list = ctx.path();
        const wildcardSubresourceOf = new Set<string>(); // x of "x/*"
        const wildcardResourceOf = new Set<string>(); // y of "*/y"
        let doubleWildcard = false;
        let singleWildcard = false;
        let plainResource = false;
        for (let i = 0; i < v.length; i++) {
          const item: unknown = v[i];
          if (typeof item !== 'string' || item === '') continue; // "" is the item's own Required error
          if (item === '*/*') doubleWildcard = true;
          if (item === '*') singleWildcard = true;
          const slash = item.indexOf('/');
          if (slash < 0) {
            plainResource = item !== '*'; // assigned, not accumulated, as upstream does
            continue;
          }
          const res = item.slice(0, slash);
          const sub = item.slice(slash + 1);
          if (wildcardSubresourceOf.has(res)) ctx.add(fieldErr.invalid(`${list}[${i}]`, item, `if '${res}/*' is present, must not specify ${item}`));
          if (wildcardResourceOf.has(sub)) ctx.add(fieldErr.invalid(`${list}[${i}]`, item, `if '*/${sub}' is present, must not specify ${item}`));
          if (sub === '*') wildcardSubresourceOf.add(res);
          if (res === '*') wildcardResourceOf.add(sub);
        }
        if (v.length > 1 && doubleWildcard) ctx.add(fieldErr.invalid(list, v, DOUBLE_WILDCARD));
        if (singleWildcard && plainResource) ctx.add(fieldErr.invalid(list, v, SINGLE_WILDCARD));
      },
    };
  },
  toCel() {
    const first = (pred: string, msg: string): string => `self.filter(r, ${pred}).map(r, ${msg})[0]`;
    const underResource = first(UNDER_RESOURCE, `"if '" + ${RES} + "/*' is present, must not specify " + r`);
    const underSubresource = first(UNDER_SUBRESOURCE, `"if '*/" + ${SUB} + "' is present, must not specify " + r`);
    return {
      rule: {
        rule: `!self.exists(r, ${UNDER_RESOURCE}) && !self.exists(r, ${UNDER_SUBRESOURCE}) && !(${DOUBLE}) && !(${SINGLE})`,
        message: 'must not specify resources a wildcard item already covers',
        messageExpression:
          `self.exists(r, ${UNDER_RESOURCE}) ? ${underResource} : self.exists(r, ${UNDER_SUBRESOURCE}) ? ${underSubresource} : ` +
          `(${DOUBLE}) ? "${DOUBLE_WILDCARD}" : "${SINGLE_WILDCARD}"`,
      },
    };
  },
  describe() {
    return "Wildcards may not overlap other items: no \"x/y\" after \"x/*\" or \"*/y\", \"*/*\" only alone, \"*\" not with plain resources.";
  },
};
