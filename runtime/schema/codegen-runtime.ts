// Runtime helpers of the generated validators (runtime/schema/codegen.ts): error builders called
// only when a check fails (they receive the path string, built lazily by the generated code), and
// the few non-trivial checks (duplicates in sets and list maps, composition trials).
// Messages are kube-openapi's, worded as compile.ts words them.
import type { FieldError } from './types.ts';
import type { ValidationContext } from './context.ts';
import { fieldErr, fmtBound, valuePart } from './errors.ts';
import { base64ErrorOffset, base64ErrorText, numberFormat, stringFormat } from './formats.ts';
import { canonicalJSON, deepEqual, getField, getPath, hasOwn, isObject, isSet } from './rules/util.ts';
import { FAST_SYNTAX } from './fastsyntax.ts';
import { labelsSurelyValid, validateEmbeddedResource } from './metadata.ts';
import { compilePattern, type CompiledPattern } from './pattern.ts';

/** The JSON type name kube-openapi reports for a value. */
export function dataType(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string': return 'string';
    case 'boolean': return 'boolean';
    case 'number': return Number.isInteger(v) ? 'integer' : 'number';
    case 'object': return Array.isArray(v) ? 'array' : 'object';
    default: return typeof v;
  }
}

const HIGH_SURROGATE = /[\uD800-\uDBFF]/;

/** Code points, as Go's utf8.RuneCountInString counts them. */
export function runeCount(s: string): number {
  if (!HIGH_SURROGATE.test(s)) return s.length; // the engine's scan, cheaper than the loop below
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) { n--; i++; }
    }
  }
  return n;
}

export function mapKeyOf(o: Record<string, unknown>, keys: string[]): string {
  if (keys.length === 1) {
    const v = hasOwn(o, keys[0]) ? o[keys[0]] : undefined;
    return typeof v === 'string' ? 's' + v : canonicalJSON(v);
  }
  let s = '';
  for (const k of keys) s += canonicalJSON(hasOwn(o, k) ? o[k] : undefined) + '\u0000';
  return s;
}

type BranchFn = (x: unknown, o: unknown, c: ValidationContext, d: number) => void;

function trial(b: BranchFn, v: unknown, old: unknown, c: ValidationContext, d: number): FieldError[] {
  const mark = c.errors.length;
  b(v, old, c, d);
  const errs = c.errors.slice(mark);
  c.errors.length = mark;
  return errs;
}

/** The helpers object (`H`) the generated source receives. */
export const H = {
  hop: Object.prototype.hasOwnProperty,
  isObject,
  deepEqual,
  runeCount,
  stringFormat,
  numberFormat,
  fastSyntax: FAST_SYNTAX,
  /** An RE2 pattern compiled on its first test (a generated module's `pattern`; checked at generation). */
  lazyPattern(source: string): Pick<CompiledPattern, 'test'> {
    let re: CompiledPattern | undefined;
    return {
      test(s: string): boolean {
        if (!re) {
          const c = compilePattern(source);
          if (!c.ok) throw new Error(`invalid pattern ${JSON.stringify(source)}: ${c.error}`);
          re = c.pattern;
        }
        return re.test(s);
      },
    };
  },
  /** apiVersion, kind and metadata of an x-cluster-embedded-resource. */
  embedded: validateEmbeddedResource,
  // Guards of rule closures (codegen.ts ruleGuard): true only where the rule reports nothing.
  /** A value nonEmpty accepts: a non-empty string or list, a number, a boolean, an object with a key. */
  surelyNonEmpty(v: unknown): boolean {
    if (typeof v === 'string' || Array.isArray(v)) return v.length > 0;
    if (typeof v === 'number' || typeof v === 'boolean') return true;
    if (isObject(v)) for (const k in v) if (hasOwn(v, k)) return true;
    return false;
  },
  /** Not a list of two items or more (nothing can repeat or be exclusive). */
  fewerThanTwo(v: unknown): boolean {
    return !Array.isArray(v) || v.length < 2;
  },
  /** Metadata without finalizers. */
  noFinalizers(v: unknown): boolean {
    if (!isObject(v)) return true;
    const f = v.finalizers;
    return !Array.isArray(f) || f.length === 0;
  },
  /** Not an object whose own field `f` is the string `s`. */
  fieldIsNot(v: unknown, f: string, s: string): boolean {
    return !isObject(v) || !(hasOwn(v, f) && v[f] === s);
  },
  /** Not an object, or one whose map at `path` has every key (`any`: some key) as its own. */
  mapHasKeys(v: unknown, path: readonly string[], keys: readonly string[], any: boolean): boolean {
    if (!isObject(v)) return true;
    let m: unknown = v;
    for (const seg of path) m = isObject(m) && hasOwn(m, seg) ? m[seg] : undefined;
    if (!isObject(m)) return false;
    for (const k of keys) if (hasOwn(m, k) === any) return any;
    return !any;
  },
  /** Not a list, or a list none of whose strings contains `part` (resourceWildcards: no wildcard, nothing to report). */
  noItemContains(v: unknown, part: string): boolean {
    if (!Array.isArray(v)) return true;
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      if (typeof item === 'string' && item.includes(part)) return false;
    }
    return true;
  },
  /** The value at a relative path (own fields only), as the rules read it. */
  at: getPath,
  /**
   * maxTotalBytes reports nothing: three times the UTF-16 length of every string value (and key,
   * `countKeys`) of the maps is within the limit, a bound of both their UTF-8 and decoded base64 sizes.
   */
  surelyWithin(v: unknown, fields: readonly string[] | null, limit: number, countKeys: boolean): boolean {
    let high = 0;
    const n = fields === null ? 1 : fields.length;
    for (let i = 0; i < n; i++) {
      const map = fields === null ? v : getPath(v, fields[i]);
      if (!isObject(map)) continue;
      for (const k in map) {
        if (!hasOwn(map, k)) continue;
        if (countKeys) high += 3 * k.length;
        const val = map[k];
        if (typeof val === 'string') high += 3 * val.length;
      }
    }
    return high <= limit;
  },
  /** How many of the fields (relative paths) are set, as exactlyOneOf and atMostOneOf count them. */
  countSet(v: unknown, fields: readonly string[]): number {
    let n = 0;
    for (let i = 0; i < fields.length; i++) if (isSet(getPath(v, fields[i]))) n++;
    return n;
  },
  /**
   * requiredKeysWhen with `nonEmpty` reports nothing: the map at `path` has every key (`any`: some
   * key), and every key it has is a string that is non-empty even decoded from base64 (two
   * characters of its alphabet first: at least one byte).
   */
  mapKeysNonEmpty(v: unknown, path: readonly string[], keys: readonly string[], any: boolean): boolean {
    if (!isObject(v)) return true;
    let m: unknown = v;
    for (const seg of path) m = isObject(m) && hasOwn(m, seg) ? m[seg] : undefined;
    if (!isObject(m)) return false;
    let present = 0;
    for (const k of keys) {
      if (!hasOwn(m, k)) continue;
      present++;
      const val = m[k];
      if (typeof val !== 'string' || val.length < 2 || !isBase64Char(val.charCodeAt(0)) || !isBase64Char(val.charCodeAt(1))) return false;
    }
    return any ? present > 0 : present === keys.length;
  },
  /** The field at a relative path is unset (absent, null, '' or []): equalWhenBothSet compares nothing. */
  unsetAt(v: unknown, path: string): boolean {
    return !isSet(getPath(v, path));
  },
  /**
   * The sign of a quantity written as plain digits and a suffix (`10Gi`, `500m`, 3): 1 or 0; -1
   * for any other value (a sign, a fraction, an exponent, not a quantity), which the rule decides.
   */
  plainQuantitySign(v: unknown): number {
    if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0 ? (v > 0 ? 1 : 0) : -1;
    if (typeof v !== 'string') return -1;
    const n = v.length;
    let i = 0;
    let nonZero = 0;
    for (; i < n; i++) {
      const c = v.charCodeAt(i);
      if (c < 48 || c > 57) break;
      if (c !== 48) nonZero = 1;
    }
    if (i === 0) return -1;
    const rest = n - i;
    if (rest === 0) return nonZero;
    const c0 = v.charCodeAt(i);
    // decimal suffixes n u m k M G T P E; binary Ki Mi Gi Ti Pi Ei
    if (rest === 1) return 'numkMGTPE'.includes(v[i]) ? nonZero : -1;
    return rest === 2 && v.charCodeAt(i + 1) === 105 && 'KMGTPE'.includes(String.fromCharCode(c0)) ? nonZero : -1;
  },
  /** labelMap reports nothing: not an object, or labels every key and value of which are valid. */
  labelMapOk(v: unknown): boolean {
    return !isObject(v) || labelsSurelyValid(v);
  },
  /**
   * itemsAtParent reports nothing: not a list, or a list whose strings all have the syntax (a
   * syntax without a fast check decides nothing), are non-empty where required, and distinct where required.
   */
  itemsOk(v: unknown, syntax: string | null, nonEmpty: boolean, distinct: boolean): boolean {
    if (!Array.isArray(v)) return true;
    const ok = syntax === null ? null : hasOwn(FAST_SYNTAX, syntax) ? FAST_SYNTAX[syntax] : undefined;
    if (ok === undefined) return false;
    for (const item of v) {
      if (typeof item !== 'string') continue;
      if ((nonEmpty && item === '') || (ok !== null && !ok(item))) return false;
    }
    return !distinct || v.length < 2 || !H.setHasDup(v);
  },
  /** uniqueBy / distinct report nothing: fewer than two items, or the items' keys (or the items) are distinct strings. */
  distinctBy(v: unknown, key: string | null): boolean {
    if (!Array.isArray(v) || v.length < 2) return true;
    const n = v.length;
    if (n > PAIRWISE_MAX) return false;
    for (let i = 0; i < n; i++) {
      const a = key === null ? v[i] : getField(v[i], key);
      if (a === undefined) continue;
      if (typeof a !== 'string') return false;
      for (let j = 0; j < i; j++) if ((key === null ? v[j] : getField(v[j], key)) === a) return false;
    }
    return true;
  },
  /** Whether every own key passes a check. */
  keysOk(o: Record<string, unknown>, ok: (s: string) => boolean): boolean {
    for (const k in o) if (Object.prototype.hasOwnProperty.call(o, k) && !ok(k)) return false;
    return true;
  },
  /** `base.name` (a property). */
  pj(base: string, name: string): string {
    return base === '' ? name : `${base}.${name}`;
  },
  /** `base[i]` (an index or a map key). */
  pb(base: string, k: string | number): string {
    return `${base}[${k}]`;
  },
  typeErr(c: ValidationContext, p: string, v: unknown, label: string): void {
    const dt = dataType(v);
    c.errors.push(fieldErr.typeInvalid(p, dt, `${p} in body must be of type ${label}: ${JSON.stringify(dt)}`));
  },
  /** fieldErr.notSupported, with the supported values' text precomputed. */
  enumErr(c: ValidationContext, p: string, v: unknown, supportedTail: string): void {
    c.errors.push({ field: p, reason: 'FieldValueNotSupported', message: `Unsupported value${valuePart(v)}${supportedTail}` });
  },
  minLen(c: ValidationContext, p: string, v: string, min: number): void {
    c.errors.push(fieldErr.invalid(p, v, `${p} in body should be at least ${min} chars long`));
  },
  maxLen(c: ValidationContext, p: string, max: number): void {
    c.errors.push(fieldErr.tooLong(p, max));
  },
  pattern(c: ValidationContext, p: string, v: string, pattern: string): void {
    c.errors.push(fieldErr.invalid(p, v, `${p} in body should match '${pattern}'`));
  },
  strFormat(c: ValidationContext, p: string, v: string, fname: string): void {
    if (fname === 'byte') {
      // bytes may be a Secret's: the path and Go's decode offset, never the value (not even as the bad value)
      const at = base64ErrorOffset(v, false);
      c.errors.push({ field: p, reason: 'FieldValueTypeInvalid', message: `Invalid value: ${p} in body must be of type byte: ${base64ErrorText(at < 0 ? 0 : at)}` });
      return;
    }
    c.errors.push(fieldErr.typeInvalid(p, v, `${p} in body must be of type ${fname}${valuePart(v)}`));
  },
  minimum(c: ValidationContext, p: string, v: number, min: number, exc: boolean): void {
    c.errors.push(fieldErr.invalid(p, v, `${p} in body should be greater than ${exc ? '' : 'or equal to '}${fmtBound(min, Number.isInteger(v))}`));
  },
  maximum(c: ValidationContext, p: string, v: number, max: number, exc: boolean): void {
    c.errors.push(fieldErr.invalid(p, v, `${p} in body should be less than ${exc ? '' : 'or equal to '}${fmtBound(max, Number.isInteger(v))}`));
  },
  isMultiple(v: number, f: number): boolean {
    if (Number.isInteger(v) && Number.isInteger(f)) return v % f === 0;
    const m = f < 1 ? (1 / f) * v : v / f;
    return Number.isInteger(m);
  },
  multipleOf(c: ValidationContext, p: string, v: number, f: number): void {
    c.errors.push(fieldErr.invalid(p, v, `${p} in body should be a multiple of ${fmtBound(f, Number.isInteger(v))}`));
  },
  numFormat(c: ValidationContext, p: string, v: number, fname: string): void {
    c.errors.push(fieldErr.typeInvalid(p, v, `${p} in body must be of type ${fname}`));
  },
  minItems(c: ValidationContext, p: string, n: number, min: number): void {
    c.errors.push(fieldErr.invalid(p, n, `${p} in body should have at least ${min} items`));
  },
  tooMany(c: ValidationContext, p: string, n: number, max: number): void {
    c.errors.push(fieldErr.tooMany(p, n, max));
  },
  /** uniqueItems: whether some item repeats (canonical JSON identity). */
  hasDuplicate(v: unknown[]): boolean {
    const seen = new Set<string>();
    for (const x of v) {
      const k = canonicalJSON(x);
      if (seen.has(k)) return true;
      seen.add(k);
    }
    return false;
  },
  notUnique(c: ValidationContext, p: string): void {
    c.errors.push(fieldErr.invalid(p, '', `${p} in body shouldn't contain duplicates`));
  },
  /** A set list: whether some item repeats (no allocation for short lists of strings). */
  setHasDup(v: unknown[]): boolean {
    const n = v.length;
    for (let i = 0; i < n; i++) if (typeof v[i] !== 'string') return setHasDupSlow(v);
    if (n > PAIRWISE_MAX) return new Set(v).size !== n; // strings: Set identity is string equality
    for (let i = 1; i < n; i++) {
      const s = v[i];
      for (let j = 0; j < i; j++) if (v[j] === s) return true;
    }
    return false;
  },
  setDupErr(c: ValidationContext, p: string, v: unknown[]): void {
    const seen = new Set<string>();
    for (let i = 0; i < v.length; i++) {
      const k = typeof v[i] === 'string' ? 's' + (v[i] as string) : canonicalJSON(v[i]);
      if (seen.has(k)) c.errors.push(fieldErr.duplicate(`${p}[${i}]`, v[i]));
      else seen.add(k);
    }
  },
  /** A list map: whether two object items share their key (no allocation for short lists with one string key). */
  mapHasDup(v: unknown[], keys: string[]): boolean {
    if (keys.length === 1 && v.length <= PAIRWISE_MAX) {
      const key = keys[0];
      const n = v.length;
      let simple = true;
      for (let i = 0; i < n; i++) {
        const it = v[i];
        if (isObject(it) && !(hasOwn(it, key) && typeof it[key] === 'string')) { simple = false; break; }
      }
      if (simple) {
        for (let i = 1; i < n; i++) {
          const a = v[i];
          if (!isObject(a)) continue;
          const ka = a[key];
          for (let j = 0; j < i; j++) {
            const b = v[j];
            if (isObject(b) && b[key] === ka) return true;
          }
        }
        return false;
      }
    }
    const seen = new Set<string>();
    for (const it of v) {
      if (!isObject(it)) continue;
      const k = mapKeyOf(it, keys);
      if (seen.has(k)) return true;
      seen.add(k);
    }
    return false;
  },
  mapDupErr(c: ValidationContext, p: string, v: unknown[], keys: string[]): void {
    const seen = new Set<string>();
    for (let i = 0; i < v.length; i++) {
      const it = v[i];
      if (!isObject(it)) continue;
      const k = mapKeyOf(it, keys);
      if (seen.has(k)) {
        const keyObj: Record<string, unknown> = {};
        for (const mk of keys) if (hasOwn(it, mk)) keyObj[mk] = it[mk];
        c.errors.push(fieldErr.duplicate(`${p}[${i}]`, keyObj));
      } else seen.add(k);
    }
  },
  /** Old list-map items by key (validateUpdate correlates items of a list map by key). */
  oldByKey(old: unknown[], keys: string[]): Map<string, unknown> {
    const m = new Map<string, unknown>();
    for (const o of old) if (isObject(o)) m.set(mapKeyOf(o, keys), o);
    return m;
  },
  oldItem(m: Map<string, unknown> | null, it: unknown, keys: string[]): unknown {
    return m !== null && isObject(it) ? m.get(mapKeyOf(it, keys)) : undefined;
  },
  forbiddenProp(c: ValidationContext, p: string, k: string): void {
    c.errors.push(fieldErr.invalid(p, k, `${p === '' ? '' : p}.${k} in body is a forbidden property`));
  },
  required(c: ValidationContext, p: string): void {
    c.errors.push(fieldErr.required(p));
  },
  minProps(c: ValidationContext, p: string, n: number, min: number): void {
    c.errors.push(fieldErr.invalid(p, n, `${p} in body should have at least ${min} properties`));
  },
  anyOf(c: ValidationContext, x: unknown, o: unknown, d: number, branches: BranchFn[]): void {
    let best: FieldError[] | null = null;
    for (const b of branches) {
      const errs = trial(b, x, o, c, d);
      if (errs.length === 0) return;
      if (!best || errs.length < best.length) best = errs;
    }
    const p = c.pathAt(d);
    c.errors.push(fieldErr.invalid(p, '', `${p} in body must validate at least one schema (anyOf)`));
    if (best) for (const e of best) c.errors.push(e);
  },
  oneOf(c: ValidationContext, x: unknown, o: unknown, d: number, branches: BranchFn[]): void {
    let ok = 0;
    let best: FieldError[] | null = null;
    for (const b of branches) {
      const errs = trial(b, x, o, c, d);
      if (errs.length === 0) ok++;
      else if (!best || errs.length < best.length) best = errs;
    }
    if (ok === 1) return;
    const p = c.pathAt(d);
    c.errors.push(fieldErr.invalid(p, '', `${p} in body must validate one and only one schema (oneOf)`));
    if (ok === 0 && best) for (const e of best) c.errors.push(e);
  },
  not(c: ValidationContext, x: unknown, o: unknown, d: number, branch: BranchFn): void {
    if (trial(branch, x, o, c, d).length === 0) {
      const p = c.pathAt(d);
      c.errors.push(fieldErr.invalid(p, '', `${p} in body must not validate the schema (not)`));
    }
  },
};

/** A character of the base64 alphabet (standard or URL-safe). */
function isBase64Char(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47 || c === 45 || c === 95;
}

/** Longest list checked pair by pair (O(n²) without allocation); longer lists use a Set (O(n)). */
const PAIRWISE_MAX = 32;

function setHasDupSlow(v: unknown[]): boolean {
  const seen = new Set<string>();
  for (const x of v) {
    const k = typeof x === 'string' ? 's' + x : canonicalJSON(x);
    if (seen.has(k)) return true;
    seen.add(k);
  }
  return false;
}

export type Helpers = typeof H;
