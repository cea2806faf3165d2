// Kubernetes format library: format.named(name) and format.<name>() return a Format whose
// validate(s) yields optional.none() when valid, or optional.of(list of error messages).
// Patterns run on RE2 (linear time).

import type { CelRegistrar } from '../registrar.ts';
import { celError, Optional } from '../values.ts';
import { compileRegex } from './regex.ts';
import { parseTimestamp } from '../schema-types.ts';
import { parseURL } from './url.ts';

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = `${DNS1123_LABEL}(\\.${DNS1123_LABEL})*`;
const DNS1035_LABEL = '[a-z]([-a-z0-9]*[a-z0-9])?';
const LABEL_VALUE = '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?';
const QUALIFIED_NAME_PART = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const UUID = '[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}';

const full = (p: string, s: string): boolean => compileRegex(`^(?:${p})$`).test(s);
const maxLen = (n: number): string => `must be no more than ${n} characters`;

const DNS1123_LABEL_MSG = `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '${DNS1123_LABEL}')`;
const DNS1123_SUBDOMAIN_MSG = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '${DNS1123_SUBDOMAIN}')`;
const DNS1035_LABEL_MSG = `a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '${DNS1035_LABEL}')`;
const LABEL_VALUE_MSG = `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '${LABEL_VALUE}')`;

function dns1123Label(s: string): string[] {
  const e: string[] = [];
  if (s.length > 63) e.push(maxLen(63));
  if (!full(DNS1123_LABEL, s)) e.push(DNS1123_LABEL_MSG);
  return e;
}
function dns1123Subdomain(s: string): string[] {
  const e: string[] = [];
  if (s.length > 253) e.push(maxLen(253));
  if (!full(DNS1123_SUBDOMAIN, s)) e.push(DNS1123_SUBDOMAIN_MSG);
  return e;
}
function dns1035Label(s: string): string[] {
  const e: string[] = [];
  if (s.length > 63) e.push(maxLen(63));
  if (!full(DNS1035_LABEL, s)) e.push(DNS1035_LABEL_MSG);
  return e;
}
const prefix = (f: (s: string) => string[]) => (s: string) => f(s.endsWith('-') ? s.slice(0, -1) : s);

function labelValue(s: string): string[] {
  const e: string[] = [];
  if (s.length > 63) e.push(maxLen(63));
  if (!full(LABEL_VALUE, s)) e.push(LABEL_VALUE_MSG);
  return e;
}

function qualifiedName(s: string): string[] {
  const e: string[] = [];
  const parts = s.split('/');
  let name = s;
  if (parts.length === 2) {
    const p = parts[0];
    name = parts[1];
    if (p.length === 0) e.push('prefix part must be non-empty');
    else for (const m of dns1123Subdomain(p)) e.push(`prefix part ${m}`);
  } else if (parts.length > 2) {
    return [
      `a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${QUALIFIED_NAME_PART}') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) e.push('name part must be non-empty');
  else if (name.length > 63) e.push(`name part ${maxLen(63)}`);
  if (name.length > 0 && !full(QUALIFIED_NAME_PART, name))
    e.push(
      `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${QUALIFIED_NAME_PART}')`,
    );
  return e;
}

const FORMATS: Record<string, (s: string) => string[]> = {
  dns1123Label,
  dns1123Subdomain,
  dns1035Label,
  qualifiedName,
  dns1123LabelPrefix: prefix(dns1123Label),
  dns1123SubdomainPrefix: prefix(dns1123Subdomain),
  dns1035LabelPrefix: prefix(dns1035Label),
  labelValue,
  uri: (s) => (parseURL(s) && /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s) || s.startsWith('/') ? [] : ['invalid URI']),
  uuid: (s) => (full(UUID, s) ? [] : ['invalid UUID']),
  byte: (s) => (full('(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?', s) ? [] : ['invalid base64']),
  date: (s) => (full('\\d{4}-\\d{2}-\\d{2}', s) && parseTimestamp(s) ? [] : ['invalid date']),
  datetime: (s) => (parseTimestamp(s) && s.length > 10 ? [] : ['invalid datetime']),
};

export class CelFormat {
  constructor(readonly name: string) {}
}

export function formatLibrary(r: CelRegistrar): void {
  r.type('net.Format', CelFormat);
  const ns = r.namespace('format');
  r.fn(`${ns}.named(string): optional<net.Format>`, ((_n: unknown, name: string) =>
    name in FORMATS ? Optional.of(new CelFormat(name)) : Optional.none()) as never);
  for (const name of Object.keys(FORMATS)) r.fn(`${ns}.${name}(): net.Format`, (() => new CelFormat(name)) as never);
  r.fn('net.Format.validate(string): optional<list<string>>', ((f: CelFormat, s: string) => {
    const check = FORMATS[f.name];
    if (!check) throw celError(`unknown format ${f.name}`);
    const errs = check(s);
    return errs.length === 0 ? Optional.none() : Optional.of(errs);
  }) as never);
}
