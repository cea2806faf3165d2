// `servicePath`: the URL path of a webhook service reference, as upstream's ValidateWebhookService
// checks it: "" and "/" pass; "//" is one error; otherwise it must start with '/', and each
// '/'-separated segment after the first character (one trailing '/' ignored) must be non-empty and
// a DNS-1123 subdomain, every error reported at the path with the whole path as the value.
import type { RuleKind } from './types.ts';
import type { FieldError } from '../types.ts';
import { fieldErr } from '../errors.ts';
import { isDNS1123Subdomain } from '../syntax.ts';

/** Upstream's path errors, in its order. */
export function servicePathErrors(path: string, at: string): FieldError[] {
  if (path === '' || path === '/') return [];
  if (path === '//') return [fieldErr.invalid(at, path, 'segment[0] may not be empty')];
  const out: FieldError[] = [];
  if (!path.startsWith('/')) out.push(fieldErr.invalid(at, path, "must start with a '/'"));
  // Upstream drops the first character whether or not it is the '/'.
  let rest = path.slice(1);
  if (rest.endsWith('/')) rest = rest.slice(0, -1);
  rest.split('/').forEach((step, i) => {
    if (step === '') {
      out.push(fieldErr.invalid(at, path, `segment[${i}] may not be empty`));
      return;
    }
    for (const msg of isDNS1123Subdomain(step)) out.push(fieldErr.invalid(at, path, `segment[${i}]: ${msg}`));
  });
  return out;
}

const SEGMENT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*';

export const servicePath: RuleKind = {
  kind: 'servicePath',
  checkParams(_p, node, env) {
    const s = env.resolve(node);
    return s.type !== undefined && s.type !== 'string' ? 'servicePath applies to a string' : null;
  },
  compile() {
    return {
      check(v, _old, ctx) {
        if (typeof v !== 'string') return;
        const errs = servicePathErrors(v, '');
        if (errs.length === 0) return;
        const at = ctx.path();
        for (const e of errs) ctx.add({ ...e, field: at });
      },
    };
  },
  toCel() {
    // Segment lengths (at most 253) are left to the validator: CEL's regex has no cheap bound here.
    return {
      rule: {
        rule: `self == '' || self == '/' || self.matches('^/${SEGMENT}(/${SEGMENT})*/?$')`,
        message: "must start with a '/' and every segment must be a non-empty DNS-1123 subdomain",
      },
    };
  },
  describe() {
    return 'Empty, "/", or a path starting with "/" whose segments are lowercase DNS-1123 subdomains.';
  },
};
