// Allocation-free acceptance checks for the common syntaxes (syntax.ts): each returns true exactly
// when the message-returning check of syntax.ts returns no problem. Validators call them first and
// fall back to syntax.ts for the messages only when a value is rejected.

/**
 * `[a-z0-9]([-a-z0-9]*[a-z0-9])?` over s[from, to), or such labels joined by single dots (`dots`):
 * one pass, `prev` the class of the last character (0 alphanumeric, 45 '-', 46 '.', and 46 before the first).
 */
function dnsOk(s: string, from: number, to: number, dots: boolean): boolean {
  if (to <= from) return false;
  let prev = 46;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) prev = 0;
    else if (c === 45) {
      if (prev === 46) return false;
      prev = 45;
    } else if (c === 46 && dots) {
      if (prev !== 0) return false;
      prev = 46;
    } else return false;
  }
  return prev === 0;
}

/** isDNS1123Label(s) is empty. */
export function dns1123LabelOk(s: string): boolean {
  return s.length <= 63 && dnsOk(s, 0, s.length, false);
}

/** isDNS1123Subdomain(s) is empty (over s[from, to)). */
export function dns1123SubdomainOk(s: string, from = 0, to = s.length): boolean {
  return to - from <= 253 && dnsOk(s, from, to, true);
}

/** `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]` over s[from, to): alphanumerics first and last, '-', '_' or '.' between. */
function qnameOk(s: string, from: number, to: number): boolean {
  if (to <= from) return false;
  let alnum = false;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57)) alnum = true;
    else if ((c === 45 || c === 95 || c === 46) && i !== from) alnum = false;
    else return false;
  }
  return alnum;
}

/** isQualifiedName(s) is empty. */
export function qualifiedNameOk(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return s.length <= 63 && qnameOk(s, 0, s.length);
  if (s.indexOf('/', slash + 1) >= 0) return false;
  if (slash === 0 || !dns1123SubdomainOk(s, 0, slash)) return false;
  return s.length - slash - 1 <= 63 && qnameOk(s, slash + 1, s.length);
}

/** isValidLabelValue(s) is empty. */
export function labelValueOk(s: string): boolean {
  return s.length === 0 || (s.length <= 63 && qnameOk(s, 0, s.length));
}

/** isConfigMapKey(s) is empty: `[-._a-zA-Z0-9]+`, at most 253, not `.`, `..` or `..`-prefixed. */
export function configMapKeyOk(s: string): boolean {
  const n = s.length;
  if (n === 0 || n > 253) return false;
  if (s.charCodeAt(0) === 46 && (n === 1 || s.charCodeAt(1) === 46)) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c !== 45 && c !== 95 && c !== 46 && !((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57))) return false;
  }
  return true;
}

/** isDNS1035Label(s) is empty: `[a-z]([-a-z0-9]*[a-z0-9])?`, at most 63. */
export function dns1035LabelOk(s: string): boolean {
  if (s.length > 63 || !dnsOk(s, 0, s.length, false)) return false;
  const c = s.charCodeAt(0);
  return c >= 97 && c <= 122;
}

/** isPathNoBacksteps(s) is empty: no segment between slashes is `..`. */
export function pathNoBackstepsOk(s: string): boolean {
  for (let at = s.indexOf('..'); at >= 0; at = s.indexOf('..', at + 1)) {
    if ((at === 0 || s.charCodeAt(at - 1) === 47) && (at + 2 === s.length || s.charCodeAt(at + 2) === 47)) return false;
  }
  return true;
}

/** The fast check of a syntax name, when there is one. */
export const FAST_SYNTAX: Partial<Record<string, (s: string) => boolean>> = {
  dns1123Subdomain: (s) => dns1123SubdomainOk(s),
  dns1123Label: dns1123LabelOk,
  dns1035Label: dns1035LabelOk,
  qualifiedName: qualifiedNameOk,
  labelKey: qualifiedNameOk,
  path: pathNoBackstepsOk,
  nonEmptyKey: (s) => s.length > 0,
  labelValue: labelValueOk,
  configMapKey: configMapKeyOk,
};
