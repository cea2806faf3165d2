// String and number formats (kube-openapi strfmt semantics, facts only). Unknown formats are ignored.
// A format name is normalized as upstream's registry does: dashes are removed (`date-time` = `datetime`).
import { isQuantity } from '../quantity/quantity.ts';

export type StringFormatCheck = (s: string) => boolean;
export type NumberFormatCheck = (n: number) => boolean;

// ---- helpers ---------------------------------------------------------------------------------

function isIPv4Sloppy(s: string): boolean {
  const parts = s.split('.');
  if (parts.length !== 4) return false;
  for (const p of parts) {
    if (!/^[0-9]+$/.test(p)) return false;
    if (Number(p) > 255) return false;
  }
  return true;
}

function isIPv6(s: string): boolean {
  if (s.length === 0) return false;
  let rest = s;
  let groups = 0;
  let ellipsis = false;
  if (rest.startsWith('::')) {
    ellipsis = true;
    rest = rest.slice(2);
    if (rest === '') return true;
  }
  for (;;) {
    // an IPv4 tail
    const colon = rest.indexOf(':');
    if (rest.includes('.') && colon < 0) {
      if (groups > 6 || !isIPv4Sloppy(rest)) return false;
      groups += 2;
      break;
    }
    const m = /^[0-9a-fA-F]{1,4}/.exec(rest);
    if (!m) return false;
    groups++;
    rest = rest.slice(m[0].length);
    if (rest === '') break;
    if (rest[0] !== ':' || rest.length === 1) return false;
    rest = rest.slice(1);
    if (rest[0] === ':') {
      if (ellipsis) return false;
      ellipsis = true;
      rest = rest.slice(1);
      if (rest === '') break;
    }
    if (groups > 8) return false;
  }
  return ellipsis ? groups < 8 : groups === 8;
}

/** Go's net.ParseIP. */
export function parseIP(s: string): boolean {
  return isIPv4Sloppy(s) || isIPv6(s);
}

function isCIDR(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^[0-9]+$/.test(bits)) return false;
  const n = Number(bits);
  if (isIPv4Sloppy(ip)) return n <= 32;
  if (isIPv6(ip)) return n <= 128;
  return false;
}

function isMAC(s: string): boolean {
  if (s.length < 14) return false;
  if (s[2] === ':' || s[2] === '-') {
    if ((s.length + 1) % 3 !== 0) return false;
    const n = (s.length + 1) / 3;
    if (n !== 6 && n !== 8 && n !== 20) return false;
    const sep = s[2];
    for (let i = 0; i < n; i++) {
      const x = i * 3;
      if (!/^[0-9a-fA-F]{2}$/.test(s.slice(x, x + 2))) return false;
      if (i < n - 1 && s[x + 2] !== sep) return false;
    }
    return true;
  }
  if (s[4] === '.') {
    if ((s.length + 1) % 5 !== 0) return false;
    const n = (2 * (s.length + 1)) / 5;
    if (n !== 6 && n !== 8 && n !== 20) return false;
    for (let x = 0; x < s.length; x += 5) {
      if (!/^[0-9a-fA-F]{4}$/.test(s.slice(x, x + 4))) return false;
      if (x + 4 < s.length && s[x + 4] !== '.') return false;
    }
    return true;
  }
  return false;
}

/** Go's url.ParseRequestURI succeeds (an absolute URI or an absolute path). */
function isRequestURI(s: string): boolean {
  // eslint-disable-next-line no-control-regex
  if (s === '' || /[\x00-\x1f\x7f]/.test(s)) return false;
  if (s === '*') return true;
  if (s[0] === ':') return false;
  let rest = s;
  let scheme = '';
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(s);
  if (m) { scheme = m[1]; rest = s.slice(m[0].length); }
  const q = rest.indexOf('?');
  if (q >= 0) rest = rest.slice(0, q);
  if (!rest.startsWith('/')) return scheme !== '';
  let path = rest;
  if (scheme !== '' && rest.startsWith('//')) {
    const auth0 = rest.slice(2);
    const slash = auth0.indexOf('/');
    let authority = slash >= 0 ? auth0.slice(0, slash) : auth0;
    path = slash >= 0 ? auth0.slice(slash) : '';
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      if (!/^[A-Za-z0-9\-._~!$&'()*+,;=:%]*$/.test(authority.slice(0, at))) return false;
      authority = authority.slice(at + 1);
    }
    if (authority.startsWith('[')) {
      const close = authority.indexOf(']');
      if (close < 0) return false;
      const after = authority.slice(close + 1);
      if (after !== '' && !/^:[0-9]*$/.test(after)) return false;
    } else {
      const colon = authority.lastIndexOf(':');
      let host = authority;
      if (colon >= 0) {
        if (!/^[0-9]*$/.test(authority.slice(colon + 1))) return false;
        host = authority.slice(0, colon);
      }
      if (!/^[A-Za-z0-9\-._~!$&'()*+,;=%]*$/.test(host)) return false;
      if (/%(?![0-9a-fA-F]{2})/.test(host)) return false;
    }
  }
  return !/%(?![0-9a-fA-F]{2})/.test(path);
}

const ATEXT = "[A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~\\u0080-\\uFFFF]";
const DOT_ATOM = `${ATEXT}+(?:\\.${ATEXT}+)*`;
const QUOTED = '"(?:[^"\\\\\\r\\n]|\\\\.)*"';
const ADDR_SPEC = `(?:${DOT_ATOM}|${QUOTED})@(?:${DOT_ATOM}|\\[[^\\[\\]\\\\]*\\])`;
const WORD = `(?:[A-Za-z0-9!#$%&'*+\\-/=?^_\`{|}~.\\u0080-\\uFFFF]+|${QUOTED})`;
// White space is ASCII only, as Go's parser skips it: JS `\s` also matches U+00A0, U+2000... which are
// atext too (any rune >= 0x80), and that overlap made `word(\s+word)*` backtrack exponentially
// (`a\u00a0` repeated 50 times never finished). With disjoint classes every backtrack fails at once.
const WSP = '[ \\t\\r\\n]';
const reEmail = new RegExp(`^${WSP}*(?:${ADDR_SPEC}|(?:${WORD}(?:${WSP}+${WORD})*${WSP}*)?<${ADDR_SPEC}>)${WSP}*$`);

/** Go's net/mail.ParseAddress accepts it (an address, optionally with a display name). */
function isEmail(s: string): boolean {
  return reEmail.test(s);
}

const reHostname =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;

function isHostname(s: string): boolean {
  if (!reHostname.test(s)) return false;
  if (Buffer.byteLength(s, 'utf8') > 255) return false;
  return s.split('.').every((p) => Buffer.byteLength(p, 'utf8') <= 63);
}

function isbn10(s: string): boolean {
  const v = s.replace(/[\s-]+/g, '');
  if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(v)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(v[i]);
  sum += v[9] === 'X' ? 100 : 10 * Number(v[9]);
  return sum % 11 === 0;
}

function isbn13(s: string): boolean {
  const v = s.replace(/[\s-]+/g, '');
  if (!/^[0-9]{13}$/.test(v)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (i % 2 === 0 ? 1 : 3) * Number(v[i]);
  return (10 - (sum % 10)) % 10 === Number(v[12]);
}

const reCreditCard =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;

function isCreditCard(s: string): boolean {
  const v = s.replace(/[^0-9]+/g, '');
  if (!reCreditCard.test(v)) return false;
  let sum = 0;
  let dbl = false;
  for (let i = v.length - 1; i >= 0; i--) {
    let d = Number(v[i]);
    if (dbl) { d *= 2; if (d >= 10) d = (d % 10) + 1; }
    sum += d;
    dbl = !dbl;
  }
  return sum % 10 === 0;
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** RFC 3339 full-date as Go's time.Parse("2006-01-02") accepts it. */
export function isDate(s: string): boolean {
  const m = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/.exec(s);
  if (!m) return false;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return d <= (mo === 2 && leap ? 29 : DAYS[mo - 1]);
}

const reTime = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;

// The common form (`2006-01-02T15:04:05Z`): a strict subset of what isDateTime accepts syntactically,
// checked without allocating; anything else takes the general path below.
const reDateTimeFast = /^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2})$/;

function num2(s: string, i: number): number {
  return (s.charCodeAt(i) - 48) * 10 + (s.charCodeAt(i + 1) - 48);
}

/** strfmt IsDateTime: `<date>T<hh:mm:ss[.frac]>(Z|±hh:mm)`, case-insensitive. */
export function isDateTime(s: string): boolean {
  if (reDateTimeFast.test(s)) {
    const y = num2(s, 0) * 100 + num2(s, 2);
    const mo = num2(s, 5);
    const d = num2(s, 8);
    if (mo < 1 || mo > 12 || d < 1) return false;
    const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
    if (d > (mo === 2 && leap ? 29 : DAYS[mo - 1])) return false;
    return num2(s, 11) <= 23 && num2(s, 14) <= 59 && num2(s, 17) <= 59;
  }
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0])) return false;
  const m = reTime.exec(parts[1]);
  if (!m) return false;
  return m[1] <= '23' && m[2] <= '59' && m[3] <= '59';
}

const reGoDuration = /^[-+]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+$/;
const DURATION_UNITS = [
  ['ns', 'nano'], ['us', 'µs', 'micro'], ['ms', 'milli'], ['s', 'sec'], ['m', 'min'], ['h', 'hr', 'hour'], ['d', 'day'], ['w', 'wk', 'week'],
];

/** strfmt ParseDuration: Go's duration syntax, or `<n> <unit>` groups such as `3 days`. */
export function isDuration(s: string): boolean {
  if (s === '0' || reGoDuration.test(s)) return true;
  let ok = false;
  for (const unit of durationGroupUnits(s)) {
    const known = DURATION_UNITS.some((vs) => vs.some((v) => unit === v || unit === v + 's'));
    if (!known) return false;
    ok = true;
  }
  return ok;
}

const isDigit = (c: string): boolean => c >= '0' && c <= '9';
const isUnitChar = (c: string): boolean => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === 'µ';
const isSpace = (c: string): boolean => /\s/.test(c);

/**
 * The lowercased units of every `<digits>\s*<letters>` group, left to right without overlap (what
 * matchAll(/([0-9]+)\s*([A-Za-zµ]+)/g) finds), in one pass: the regex retried at every digit of a
 * run that no unit follows, quadratic in the run (10,000 digits: 0.4 s).
 */
function durationGroupUnits(s: string): string[] {
  const units: string[] = [];
  let i = 0;
  while (i < s.length) {
    if (!isDigit(s[i])) {
      i++;
      continue;
    }
    while (i < s.length && isDigit(s[i])) i++;
    let j = i;
    while (j < s.length && isSpace(s[j])) j++;
    const start = j;
    while (j < s.length && isUnitChar(s[j])) j++;
    // no unit after the run: no start inside the run matches either (a digit follows each)
    if (j > start) {
      units.push(s.slice(start, j).toLowerCase());
      i = j;
    }
  }
  return units;
}

// ---- base64 as Go decodes a []byte field ---------------------------------------------------------

const B64_VALUE = new Int8Array(256).fill(-1);
for (const [i, c] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].entries()) B64_VALUE[c.charCodeAt(0)] = i;
const PAD = 0x3d; // '='
const isNewline = (b: number): boolean => b === 0x0a || b === 0x0d;

/**
 * Where Go's base64.StdEncoding.DecodeString fails on `s` (the `N` of `illegal base64 data at input
 * byte N`, an offset into the UTF-8 bytes), or -1 when it decodes. Go's decoder skips `\r` and `\n`
 * (a JSON []byte field, such as Secret data); the `byte` format of a schema does not
 * (`skipNewlines: false`). Never returns or quotes any of the input.
 */
export function base64ErrorOffset(s: string, skipNewlines: boolean): number {
  const src = Buffer.from(s, 'utf8');
  let si = 0;
  while (si < src.length) {
    // one quantum of four characters (Go's decodeQuantum)
    for (let j = 0; j < 4; j++) {
      if (si === src.length) return j === 0 ? -1 : si - j; // a partial quantum: padding is required
      const b = src[si++];
      if (B64_VALUE[b] >= 0) continue;
      if (skipNewlines && isNewline(b)) {
        j--;
        continue;
      }
      if (b !== PAD || j < 2) return si - 1;
      if (j === 2) {
        // a second '=' must follow
        if (skipNewlines) while (si < src.length && isNewline(src[si])) si++;
        if (si === src.length) return src.length;
        if (src[si] !== PAD) return si - 1;
        si++;
      }
      if (skipNewlines) while (si < src.length && isNewline(src[si])) si++;
      return si < src.length ? si : -1; // anything after the padding is trailing garbage
    }
  }
  return -1;
}

/** Go's decode error text for a base64 value, without the value. */
export function base64ErrorText(offset: number): string {
  return `illegal base64 data at input byte ${offset}`;
}

// ---- the tables ------------------------------------------------------------------------------

/** With a length that is a multiple of 4: standard base64 with its padding. */
const reBase64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A subset of the quantity syntax (digits, optional fraction, one SI or binary suffix). */
const reQuantityFast = /^[+-]?[0-9]+(?:\.[0-9]*)?(?:[numkMGTPE]|[KMGTPE]i)?$/;

/** Formats checked on string values. */
export const STRING_FORMATS: Record<string, StringFormatCheck> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: isRequestURI,
  email: isEmail,
  hostname: isHostname,
  ipv4: (s) => parseIP(s) && s.includes('.'),
  ipv6: (s) => parseIP(s) && s.includes(':'),
  cidr: isCIDR,
  mac: isMAC,
  uuid: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid3: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  uuid4: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  uuid5: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(s),
  isbn: (s) => isbn10(s) || isbn13(s),
  isbn10,
  isbn13,
  creditcard: isCreditCard,
  ssn: (s) => s.length === 11 && /^\d{3}[- ]?\d{2}[- ]?\d{4}$/.test(s),
  hexcolor: (s) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(s),
  rgbcolor: (s) =>
    /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/.test(s),
  // upstream's regex rejects "", but an empty []byte is valid in built-in types (Secret data), so "" passes here
  // = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/, without its backtracking
  byte: (s) => s === '' || (s.length % 4 === 0 && reBase64.test(s)),
  password: () => true,
  date: isDate,
  duration: isDuration,
  datetime: isDateTime,
  // the common forms (`100Mi`, `1.5`, `250m`) are quantities without parsing
  quantity: (s) => reQuantityFast.test(s) || isQuantity(s),
};

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const INT64_LIMIT = 9223372036854775807;

/** Formats checked on numeric values (the value must fit the Go type). */
export const NUMBER_FORMATS: Record<string, NumberFormatCheck> = {
  int32: (n) => Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX,
  int64: (n) => Number.isInteger(n) && n >= -INT64_LIMIT && n <= INT64_LIMIT,
  uint32: (n) => Number.isInteger(n) && n >= 0 && n <= 4294967295,
  uint64: (n) => Number.isInteger(n) && n >= 0 && n <= 18446744073709551615,
  float: (n) => Math.abs(n) <= 3.4028234663852886e38,
};

function normalize(name: string): string {
  return name.replace(/-/g, '');
}

/** The string check for a format, or undefined when the format is unknown (ignored). */
export function stringFormat(name: string): StringFormatCheck | undefined {
  return Object.prototype.hasOwnProperty.call(STRING_FORMATS, name)
    ? STRING_FORMATS[name]
    : Object.prototype.hasOwnProperty.call(STRING_FORMATS, normalize(name)) ? STRING_FORMATS[normalize(name)] : undefined;
}

export function numberFormat(name: string): NumberFormatCheck | undefined {
  return Object.prototype.hasOwnProperty.call(NUMBER_FORMATS, name) ? NUMBER_FORMATS[name] : undefined;
}
