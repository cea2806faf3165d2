// Allocation-free acceptance checks for the common syntaxes (syntax.ts): each returns true exactly
// when the message-returning check of syntax.ts returns no problem. Validators call them first and
// fall back to syntax.ts for the messages only when a value is rejected.

function isAlnumLower(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
}
function isAlnum(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
}

/** `[a-z0-9]([-a-z0-9]*[a-z0-9])?` over s[from, to). */
function labelOk(s: string, from: number, to: number): boolean {
  if (to <= from) return false;
  if (!isAlnumLower(s.charCodeAt(from)) || !isAlnumLower(s.charCodeAt(to - 1))) return false;
  for (let i = from + 1; i < to - 1; i++) {
    const c = s.charCodeAt(i);
    if (c !== 45 && !isAlnumLower(c)) return false;
  }
  return true;
}

/** isDNS1123Label(s) is empty. */
export function dns1123LabelOk(s: string): boolean {
  return s.length <= 63 && labelOk(s, 0, s.length);
}

/** isDNS1123Subdomain(s) is empty (over s[from, to)). */
export function dns1123SubdomainOk(s: string, from = 0, to = s.length): boolean {
  if (to - from > 253) return false;
  let start = from;
  for (let i = from; i <= to; i++) {
    if (i === to || s.charCodeAt(i) === 46) {
      if (!labelOk(s, start, i)) return false;
      start = i + 1;
    }
  }
  return true;
}

/** `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]` over s[from, to). */
function qnameOk(s: string, from: number, to: number): boolean {
  if (to <= from) return false;
  if (!isAlnum(s.charCodeAt(from)) || !isAlnum(s.charCodeAt(to - 1))) return false;
  for (let i = from + 1; i < to - 1; i++) {
    const c = s.charCodeAt(i);
    if (c !== 45 && c !== 95 && c !== 46 && !isAlnum(c)) return false;
  }
  return true;
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
    if (c !== 45 && c !== 95 && c !== 46 && !isAlnum(c)) return false;
  }
  return true;
}

/** isDNS1035Label(s) is empty: `[a-z]([-a-z0-9]*[a-z0-9])?`, at most 63. */
export function dns1035LabelOk(s: string): boolean {
  if (s.length > 63 || !labelOk(s, 0, s.length)) return false;
  const c = s.charCodeAt(0);
  return c >= 97 && c <= 122;
}

/** The fast check of a syntax name, when there is one. */
export const FAST_SYNTAX: Partial<Record<string, (s: string) => boolean>> = {
  dns1123Subdomain: (s) => dns1123SubdomainOk(s),
  dns1123Label: dns1123LabelOk,
  dns1035Label: dns1035LabelOk,
  qualifiedName: qualifiedNameOk,
  labelValue: labelValueOk,
  configMapKey: configMapKeyOk,
};
