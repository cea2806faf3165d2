// Name, label and key syntax checks with upstream's messages (apimachinery util/validation,
// api/validation/path, core validation). Each check returns the list of problems (empty = valid).

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_ERR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_ERR =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const QNAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QNAME_ERR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT = `(${QNAME_FMT})?`;
const LABEL_VALUE_ERR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const CONFIG_MAP_KEY_FMT = '[-._a-zA-Z0-9]+';
const CONFIG_MAP_KEY_ERR = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";

export const DNS1123_LABEL_MAX = 63;
export const DNS1123_SUBDOMAIN_MAX = 253;
export const QUALIFIED_NAME_MAX = 63;
export const LABEL_VALUE_MAX = 63;

const reLabel = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const reSubdomain = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const re1035 = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const reQName = new RegExp(`^${QNAME_FMT}$`);
const reLabelValue = new RegExp(`^${LABEL_VALUE_FMT}$`);
const reConfigKey = new RegExp(`^${CONFIG_MAP_KEY_FMT}$`);

/** Upstream RegexError: `<msg> (e.g. 'a',  or 'b', regex used for validation is '<fmt>')`. */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let s = msg + ' (e.g. ';
  examples.forEach((ex, i) => {
    if (i > 0) s += ' or ';
    s += `'${ex}', `;
  });
  return s + `regex used for validation is '${fmt}')`;
}
export function maxLenError(n: number): string {
  return `must be no more than ${n} characters`;
}
export const EMPTY_ERROR = 'must be non-empty';

export function isDNS1123Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > DNS1123_LABEL_MAX) errs.push(maxLenError(DNS1123_LABEL_MAX));
  if (!reLabel.test(v)) {
    if (reSubdomain.test(v)) errs.push('must not contain dots');
    else errs.push(regexError(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, 'my-name', '123-abc'));
  }
  return errs;
}

export function isDNS1123Subdomain(v: string): string[] {
  const errs: string[] = [];
  if (v.length > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!reSubdomain.test(v)) errs.push(regexError(DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, 'example.com'));
  return errs;
}

export function isDNS1035Label(v: string): string[] {
  const errs: string[] = [];
  if (v.length > DNS1123_LABEL_MAX) errs.push(maxLenError(DNS1123_LABEL_MAX));
  if (!re1035.test(v)) errs.push(regexError(DNS1035_LABEL_ERR, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  return errs;
}

/** Qualified name (label key, annotation key, finalizer): optional DNS subdomain prefix + '/' + name. */
export function isQualifiedName(v: string): string[] {
  const errs: string[] = [];
  const parts = v.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push('prefix part ' + EMPTY_ERROR);
    else for (const m of isDNS1123Subdomain(prefix)) errs.push('prefix part ' + m);
  } else {
    return [
      'a qualified name ' +
        regexError(QNAME_ERR, QNAME_FMT, 'MyName', 'my.name', '123-abc') +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) errs.push('name part ' + EMPTY_ERROR);
  else if (name.length > QUALIFIED_NAME_MAX) errs.push('name part ' + maxLenError(QUALIFIED_NAME_MAX));
  if (!reQName.test(name)) errs.push('name part ' + regexError(QNAME_ERR, QNAME_FMT, 'MyName', 'my.name', '123-abc'));
  return errs;
}

export function isValidLabelValue(v: string): string[] {
  const errs: string[] = [];
  if (v.length > LABEL_VALUE_MAX) errs.push(maxLenError(LABEL_VALUE_MAX));
  if (!reLabelValue.test(v)) errs.push(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errs;
}

export function isConfigMapKey(v: string): string[] {
  const errs: string[] = [];
  if (v.length > DNS1123_SUBDOMAIN_MAX) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!reConfigKey.test(v)) errs.push(regexError(CONFIG_MAP_KEY_ERR, CONFIG_MAP_KEY_FMT, 'key.name', 'KEY_NAME', 'key-name'));
  if (v === '.') errs.push("must not be '.'");
  else if (v === '..') errs.push("must not be '..'");
  else if (v.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

/** Path segment names (apimachinery api/validation/path). */
export function isValidPathSegmentName(v: string, prefix = false): string[] {
  if (!prefix) {
    for (const bad of ['.', '..']) if (v === bad) return [`may not be '${bad}'`];
  }
  const errs: string[] = [];
  for (const bad of ['/', '%']) if (v.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}

/** Relative path: not absolute, no '..' element (core validateLocalDescendingPath). */
export function isRelativePath(v: string): string[] {
  const errs: string[] = [];
  if (v.startsWith('/')) errs.push('must be a relative path');
  errs.push(...isPathNoBacksteps(v));
  return errs;
}

/**
 * A file path inside a volume (core validateLocalNonReservedPath): a relative path without '..'
 * elements that also does not start with '..' (the volume's own ..data links live there).
 */
export function isNonReservedPath(v: string): string[] {
  const errs = isRelativePath(v);
  // Upstream skips this error when the '..' element check already caught it ('../x').
  if (v.startsWith('..') && !v.startsWith('../')) errs.push("must not start with '..'");
  return errs;
}

/** Any path without a '..' element (core validatePathNoBacksteps). */
export function isPathNoBacksteps(v: string): string[] {
  return v.split('/').includes('..') ? ["must not contain '..'"] : [];
}

export function isNonEmptyKey(v: string): string[] {
  return v.length === 0 ? ['field can not be empty.'] : [];
}

/** One problem of a webhook URL: its reason, the value upstream reports, and the detail. */
export interface UrlProblem {
  reason: 'FieldValueRequired' | 'FieldValueInvalid';
  value: string;
  detail: string;
}

const URL_FORM = '; desired format: https://host[/path]';

/** Webhook URL rules (apiserver util/webhook ValidateWebhookURL with forceHttps). */
export function checkHttpsUrl(raw: string): UrlProblem[] {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/s.exec(raw);
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(raw)) {
    return [{ reason: 'FieldValueRequired', value: raw, detail: `url must be a valid URL: parse ${JSON.stringify(raw)}: net/url: invalid control character in URL${URL_FORM}` }];
  }
  const out: UrlProblem[] = [];
  const scheme = m ? m[1].toLowerCase() : '';
  let rest = m ? m[2] : raw;
  let fragment = '';
  const hashAt = rest.indexOf('#');
  if (hashAt >= 0) { fragment = rest.slice(hashAt + 1); rest = rest.slice(0, hashAt); }
  let query = '';
  const qAt = rest.indexOf('?');
  if (qAt >= 0) { query = rest.slice(qAt + 1); rest = rest.slice(0, qAt); }
  let host = '';
  let user: string | null = null;
  if (rest.startsWith('//')) {
    let authority = rest.slice(2);
    const slash = authority.indexOf('/');
    if (slash >= 0) authority = authority.slice(0, slash);
    const at = authority.lastIndexOf('@');
    if (at >= 0) { user = authority.slice(0, at); authority = authority.slice(at + 1); }
    host = authority;
  }
  if (scheme !== 'https') out.push({ reason: 'FieldValueInvalid', value: scheme, detail: "'https' is the only allowed URL scheme" + URL_FORM });
  if (host.length === 0) out.push({ reason: 'FieldValueInvalid', value: host, detail: 'host must be provided' + URL_FORM });
  if (user !== null) out.push({ reason: 'FieldValueInvalid', value: user, detail: 'user information is not permitted in the URL' });
  if (fragment.length) out.push({ reason: 'FieldValueInvalid', value: fragment, detail: 'fragments are not permitted in the URL' });
  if (query.length) out.push({ reason: 'FieldValueInvalid', value: query, detail: 'query parameters are not permitted in the URL' });
  return out;
}

export type SyntaxName =
  | 'dns1123Subdomain' | 'dns1123Label' | 'dns1035Label' | 'qualifiedName' | 'labelKey' | 'labelValue'
  | 'configMapKey' | 'relativePath' | 'nonReservedPath' | 'httpsUrl' | 'nonEmptyKey' | 'path' | 'pathSegment';

/** The message-returning checks by syntax name (httpsUrl maps each problem to its detail). */
export const SYNTAX_CHECKS: Record<SyntaxName, (v: string) => string[]> = {
  dns1123Subdomain: isDNS1123Subdomain,
  dns1123Label: isDNS1123Label,
  dns1035Label: isDNS1035Label,
  qualifiedName: isQualifiedName,
  labelKey: isQualifiedName,
  labelValue: isValidLabelValue,
  configMapKey: isConfigMapKey,
  relativePath: isRelativePath,
  nonReservedPath: isNonReservedPath,
  httpsUrl: (v) => checkHttpsUrl(v).map((p) => p.detail),
  nonEmptyKey: isNonEmptyKey,
  path: isPathNoBacksteps,
  pathSegment: (v) => isValidPathSegmentName(v),
};

export function isSyntaxName(s: unknown): s is SyntaxName {
  return typeof s === 'string' && Object.prototype.hasOwnProperty.call(SYNTAX_CHECKS, s);
}

function celQuote(s: string): string {
  return "'" + s.replace(/\\/g, '\\\\').replace(/'/g, "\\'") + "'";
}

/** A CEL expression over `expr` (a string) that is true when it has the syntax; null if CEL cannot say. */
export function syntaxCel(name: SyntaxName, expr = 'self'): string | null {
  const m = (re: string) => `${expr}.matches(${celQuote(re)})`;
  const noBack = `!${m('(^|/)\\.\\.(/|$)')}`;
  switch (name) {
    case 'dns1123Subdomain': return `${expr}.size() <= ${DNS1123_SUBDOMAIN_MAX} && ${m(`^${DNS1123_SUBDOMAIN_FMT}$`)}`;
    case 'dns1123Label': return `${expr}.size() <= ${DNS1123_LABEL_MAX} && ${m(`^${DNS1123_LABEL_FMT}$`)}`;
    case 'dns1035Label': return `${expr}.size() <= ${DNS1123_LABEL_MAX} && ${m(`^${DNS1035_LABEL_FMT}$`)}`;
    case 'qualifiedName':
    case 'labelKey':
      return `${m(`^(${DNS1123_SUBDOMAIN_FMT}/)?${QNAME_FMT}$`)} && !${m(`(^|/)[^/]{${QUALIFIED_NAME_MAX + 1},}$`)}`;
    case 'labelValue': return `${expr}.size() <= ${LABEL_VALUE_MAX} && ${m(`^${LABEL_VALUE_FMT}$`)}`;
    case 'configMapKey': return `${expr}.size() <= ${DNS1123_SUBDOMAIN_MAX} && ${m(`^${CONFIG_MAP_KEY_FMT}$`)} && !${expr}.startsWith('..') && ${expr} != '.'`;
    case 'relativePath': return `!${expr}.startsWith('/') && ${noBack}`;
    case 'nonReservedPath': return `!${expr}.startsWith('/') && ${noBack} && (!${expr}.startsWith('..') || ${expr}.startsWith('../'))`;
    case 'path': return noBack;
    case 'httpsUrl': return m('^https://[^/?#@]+(/[^?#]*)?$');
    case 'nonEmptyKey': return `${expr}.size() > 0`;
    case 'pathSegment': return `${expr} != '.' && ${expr} != '..' && !${expr}.contains('/') && !${expr}.contains('%')`;
  }
}

/** One sentence per syntax, for OpenAPI descriptions. */
export const SYNTAX_DESCRIPTIONS: Record<SyntaxName, string> = {
  dns1123Subdomain: 'a lowercase RFC 1123 subdomain (at most 253 characters)',
  dns1123Label: 'a lowercase RFC 1123 label (at most 63 characters)',
  dns1035Label: 'a lowercase RFC 1035 label (at most 63 characters, starting with a letter)',
  qualifiedName: 'a qualified name (an optional DNS subdomain prefix and "/", then at most 63 characters)',
  labelKey: 'a label key (an optional DNS subdomain prefix and "/", then at most 63 characters)',
  labelValue: 'a label value (empty or at most 63 alphanumeric characters, "-", "_" or ".")',
  configMapKey: 'a config key (at most 253 characters of alphanumerics, "-", "_" or ".", not "." or "..")',
  relativePath: 'a relative path without ".." elements',
  nonReservedPath: 'a relative path without ".." elements that does not start with ".."',
  httpsUrl: 'an https URL without user information, query or fragment',
  nonEmptyKey: 'a non-empty key',
  path: 'a path without ".." elements',
  pathSegment: 'a path segment (not "." or "..", without "/" or "%")',
};
