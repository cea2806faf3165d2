// Field paths and field sets as structured-merge-diff's `fieldpath` package models them, with the
// FieldsV1 wire format of managedFields:
//   `f:<name>` a field, `k:{"name":"x"}` a map-list element by its keys, `v:<json>` a set-list
//   value, `i:<n>` an index, and `.` (inside a node that has children) the node itself.

import { isObject, type JsonObject } from '../json/is-object.ts';
import { compareStrings } from './schema-nav.ts';
import { DEEP_LEVELS, markDeep } from '../json/stringify.ts';

export type PathElement =
  | { readonly field: string }
  /** Key fields sorted by name. */
  | { readonly key: ReadonlyArray<readonly [string, unknown]> }
  | { readonly value: unknown }
  | { readonly index: number };

export type FieldPath = readonly PathElement[];

const GO_ESCAPED = /[<>&\u2028\u2029]/;

/** Go encoding/json text (HTML-escaped, map keys sorted), as upstream serializes key and value elements. */
export function goJson(v: unknown, sortMapKeys = true): string {
  const text = JSON.stringify(sortMapKeys && typeof v === 'object' && v !== null ? sortKeys(v) : v);
  // Nearly every text has none of the characters Go escapes: skip the five replacements then.
  if (!GO_ESCAPED.test(text)) return text;
  return text
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (isObject(v)) {
    const out: JsonObject = {};
    for (const k of Object.keys(v).sort(compareStrings)) out[k] = sortKeys(v[k]);
    return out;
  }
  return v;
}

/** The FieldsV1 key of one element: `f:name`, `k:{...}`, `v:...`, `i:3`. */
export function serializePathElement(pe: PathElement): string {
  if ('field' in pe) return `f:${pe.field}`;
  if ('key' in pe) {
    const parts = pe.key.map(([n, v]) => `${goJson(n)}:${goJson(v)}`);
    return `k:{${parts.join(',')}}`;
  }
  if ('value' in pe) return `v:${goJson(pe.value)}`;
  return `i:${pe.index}`;
}

export class FieldsV1Error extends Error {}

/** List elements read from FieldsV1 keys, with their canonical keys: every write reads the stored object's thousands again. */
const readElements = new Map<string, { pe: PathElement; key: string }>();
const MAX_READ_ELEMENTS = 50_000;

/** deserializePathElement and the canonical key of a FieldsV1 key (path elements are never changed, so they are shared). */
function readElement(k: string): { pe: PathElement; key: string } {
  let r = readElements.get(k);
  if (r === undefined) {
    const pe = deserializePathElement(k);
    r = { pe, key: serializePathElement(pe) };
    if (readElements.size >= MAX_READ_ELEMENTS) readElements.clear();
    readElements.set(k, r);
  }
  return r;
}

export function deserializePathElement(s: string): PathElement {
  const colon = s.indexOf(':');
  if (colon < 0) throw new FieldsV1Error(`unknown path element: ${JSON.stringify(s)}`);
  const kind = s.slice(0, colon);
  const rest = s.slice(colon + 1);
  switch (kind) {
    case 'f':
      return { field: rest };
    case 'v':
      try {
        return { value: JSON.parse(rest) as unknown };
      } catch {
        throw new FieldsV1Error(`parsing JSON: ${JSON.stringify(rest)}`);
      }
    case 'k': {
      let parsed: unknown;
      try {
        parsed = JSON.parse(rest);
      } catch {
        throw new FieldsV1Error(`parsing JSON: ${JSON.stringify(rest)}`);
      }
      if (!isObject(parsed)) throw new FieldsV1Error(`expected key value pairs but got ${rest}`);
      const entries = Object.entries(parsed).sort((a, b) => compareStrings(a[0], b[0]));
      return { key: entries };
    }
    case 'i': {
      const n = Number(rest);
      if (!/^-?\d+$/.test(rest) || !Number.isSafeInteger(n)) throw new FieldsV1Error(`strconv.Atoi: parsing ${JSON.stringify(rest)}: invalid syntax`);
      return { index: n };
    }
    default:
      throw new FieldsV1Error(`unknown path element: ${JSON.stringify(s)}`);
  }
}

// Comparators and ranks are module-level functions, not closures: they run per element of every
// managedFields computation, and tsx's keepNames turns each closure creation into a call.
function valueRank(v: unknown): number {
  return typeof v === 'number' ? 0 : typeof v === 'string' ? 1 : typeof v === 'boolean' ? 2 : Array.isArray(v) ? 3 : isObject(v) ? 4 : 5;
}

function elementRank(p: PathElement): number {
  return 'field' in p ? 0 : 'key' in p ? 1 : 'value' in p ? 2 : 3;
}

function compareChildNodes(a: ChildNode, b: ChildNode): number {
  return comparePathElements(a.pe, b.pe);
}

/** structured-merge-diff's value.Compare order: numbers < strings < bools < lists < maps < null. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = valueRank(a);
  const rb = valueRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1:
      return compareStrings(a as string, b as string);
    case 2:
      return a === b ? 0 : a ? 1 : -1;
    case 3: {
      const la = a as unknown[];
      const lb = b as unknown[];
      for (let i = 0; i < Math.min(la.length, lb.length); i++) {
        const c = compareValues(la[i], lb[i]);
        if (c !== 0) return c;
      }
      return la.length === lb.length ? 0 : la.length < lb.length ? -1 : 1;
    }
    case 4: {
      const ka = Object.keys(a as JsonObject).sort(compareStrings);
      const kb = Object.keys(b as JsonObject).sort(compareStrings);
      for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
        const c = compareStrings(ka[i], kb[i]);
        if (c !== 0) return c;
        const cv = compareValues((a as JsonObject)[ka[i]], (b as JsonObject)[kb[i]]);
        if (cv !== 0) return cv;
      }
      return ka.length === kb.length ? 0 : ka.length < kb.length ? -1 : 1;
    }
    default:
      return 0;
  }
}

/** PathElement.Compare: fields < keys < values < indexes. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  const ra = elementRank(a);
  const rb = elementRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  if ('field' in a && 'field' in b) return compareStrings(a.field, b.field);
  if ('key' in a && 'key' in b) {
    for (let i = 0; ; i++) {
      if (i >= a.key.length && i >= b.key.length) return 0;
      if (i >= a.key.length) return -1;
      if (i >= b.key.length) return 1;
      const c = compareStrings(a.key[i][0], b.key[i][0]);
      if (c !== 0) return c;
      const cv = compareValues(a.key[i][1], b.key[i][1]);
      if (cv !== 0) return cv;
    }
  }
  if ('value' in a && 'value' in b) return compareValues(a.value, b.value);
  if ('index' in a && 'index' in b) return a.index - b.index;
  return 0;
}

/** value.ToString of structured-merge-diff (strings quoted). */
function valueToString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return '[' + v.map(valueToString).join(',') + ']';
  if (isObject(v)) return '{' + Object.keys(v).sort(compareStrings).map((k) => `${k}=${valueToString(v[k])}`).join(',') + '}';
  return String(v);
}

/** Path text as in conflict messages: `.spec.drivers[name="a"].nodeID`, `.metadata.finalizers[="x"]`, `[3]`. */
export function pathToString(path: FieldPath): string {
  return path
    .map((pe) => {
      if ('field' in pe) return `.${pe.field}`;
      if ('key' in pe) return '[' + pe.key.map(([n, v]) => `${n}=${valueToString(v)}`).join(',') + ']';
      if ('value' in pe) return `[=${valueToString(pe.value)}]`;
      return `[${pe.index}]`;
    })
    .join('');
}

interface ChildNode {
  pe: PathElement;
  set: FieldSet;
}

const isFieldKey = (k: string): boolean => k.charCodeAt(0) === 0x66 /* f */ && k.charCodeAt(1) === 0x3a; /* : */

/** The keys of `entries` in PathElement order; fields (nearly every element) by name alone, as their keys `f:<name>` share a prefix. */
function sortedKeys<T>(entries: Map<string, T>, peOf: (t: T) => PathElement): string[] {
  const fieldKeys: string[] = [];
  let others: string[] | undefined;
  for (const k of entries.keys()) {
    if (isFieldKey(k)) fieldKeys.push(k);
    else (others ??= []).push(k);
  }
  fieldKeys.sort(compareStrings);
  if (others === undefined) return fieldKeys;
  others.sort((a, b) => comparePathElements(peOf(entries.get(a) as T), peOf(entries.get(b) as T)));
  return fieldKeys.concat(others);
}

/** comparePathElements of two elements given with their keys: fields by their keys alone. */
function compareKeyed(ka: string, pa: PathElement, kb: string, pb: PathElement): number {
  return isFieldKey(ka) && isFieldKey(kb) ? compareStrings(ka, kb) : comparePathElements(pa, pb);
}

/**
 * The `{}` of every FieldsV1 leaf, one frozen object shared by all: a 100,000-field set otherwise
 * allocates (and the collector later moves) 100,000 empty objects. FieldsV1 objects are only read.
 */
export const FIELDS_V1_LEAF: JsonObject = Object.freeze({}) as JsonObject;

const memberPe = (pe: PathElement): PathElement => pe;
const childPe = (c: ChildNode): PathElement => c.pe;

/** `m` without the keys of `drop` (`m` itself when it has none of them): the cheaper side is walked. */
function withoutKeys<T>(m: Map<string, T>, drop: Map<string, unknown>): Map<string, T> {
  if (m.size === 0 || drop.size === 0) return m;
  if (drop.size <= m.size) {
    let out: Map<string, T> | undefined;
    for (const k of drop.keys()) {
      if (!m.has(k)) continue;
      out ??= new Map(m);
      out.delete(k);
    }
    return out ?? m;
  }
  const out = new Map<string, T>();
  for (const [k, v] of m) if (!drop.has(k)) out.set(k, v);
  return out.size === m.size ? m : out;
}

/**
 * A set of field paths (structured-merge-diff fieldpath.Set): members at this level plus child sets.
 *
 * A set is built once (fromPaths, fromFieldsV1, insert and childFor while a walk builds it) and
 * never changed after it is handed out: the set operations share every subtree, member map and
 * child map that comes out unchanged with their inputs, so that an operation costs what differs
 * (an Update's small change set against a 100,000-field set touches a handful of nodes).
 */
/** How many levels the FieldsV1 object emit returned last has (toFieldsV1 reads it). */
let emittedLevels = 0;

export class FieldSet {
  constructor(
    readonly members: Map<string, PathElement> = new Map(),
    readonly children: Map<string, ChildNode> = new Map(),
  ) {}

  static empty(): FieldSet {
    return new FieldSet(new Map(), new Map());
  }

  static fromPaths(paths: Iterable<FieldPath>): FieldSet {
    const s = FieldSet.empty();
    for (const p of paths) s.insert(p);
    return s;
  }

  insert(path: FieldPath): void {
    if (path.length === 0) return;
    let cur: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) cur = cur.childFor(serializePathElement(path[i]), path[i]);
    const last = path[path.length - 1];
    cur.members.set(serializePathElement(last), last);
  }

  /** The child set under `pe`, if any. */
  child(pe: PathElement): FieldSet | undefined {
    return this.children.get(serializePathElement(pe))?.set;
  }

  /**
   * The child set under `pe`, made when missing; `key` is serializePathElement(pe). The caller
   * inserts a member under it at once (a child set is never left empty: see empty()).
   */
  childFor(key: string, pe: PathElement): FieldSet {
    let n = this.children.get(key);
    if (!n) {
      n = { pe, set: FieldSet.empty() };
      this.children.set(key, n);
    }
    return n.set;
  }

  has(path: FieldPath): boolean {
    if (path.length === 0) return false;
    let cur: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && cur; i++) cur = cur.child(path[i]);
    return !!cur && cur.members.has(serializePathElement(path[path.length - 1]));
  }

  hasMember(pe: PathElement): boolean {
    return this.members.has(serializePathElement(pe));
  }

  /**
   * O(1): no child set is ever empty, since every way of building a set (insert, childFor, the set
   * operations, FieldsV1 decoding) adds a child only with a member below it. A recursive check
   * here made the set operations O(depth²) on deep objects.
   */
  empty(): boolean {
    return this.members.size === 0 && this.children.size === 0;
  }

  /** Itself: a set is not changed once built (see the class comment), so a copy would equal it forever. */
  copy(): FieldSet {
    return this;
  }

  // Each node present in both sets is visited once; a subtree in one set only is shared.
  union(o: FieldSet): FieldSet {
    if (o.empty() || o === this) return this;
    if (this.empty()) return o;
    let members = this.members;
    if (o.members.size > 0) {
      const [big, small] = this.members.size >= o.members.size ? [this.members, o.members] : [o.members, this.members];
      let added: Map<string, PathElement> | undefined;
      for (const [k, pe] of small) {
        if (big.has(k)) continue;
        added ??= new Map(big);
        added.set(k, pe);
      }
      members = added ?? big;
    }
    let children = this.children;
    if (o.children.size > 0) {
      const [big, small] = this.children.size >= o.children.size ? [this.children, o.children] : [o.children, this.children];
      let out: Map<string, ChildNode> | undefined;
      for (const [k, c] of small) {
        const other = big.get(k);
        const merged = other ? other.set.union(c.set) : c.set;
        if (other && merged === other.set) continue;
        out ??= new Map(big);
        out.set(k, { pe: c.pe, set: merged });
      }
      children = out ?? big;
    }
    if (members === this.members && children === this.children) return this;
    if (members === o.members && children === o.children) return o;
    return new FieldSet(members, children);
  }

  intersection(o: FieldSet): FieldSet {
    if (o === this) return this;
    if (this.empty() || o.empty()) return FieldSet.empty();
    const members = new Map<string, PathElement>();
    const [bigM, smallM] = this.members.size >= o.members.size ? [this.members, o.members] : [o.members, this.members];
    for (const [k, pe] of smallM) if (bigM.has(k)) members.set(k, pe);
    const children = new Map<string, ChildNode>();
    const [bigC, smallC] = this.children.size >= o.children.size ? [this.children, o.children] : [o.children, this.children];
    for (const [k, c] of smallC) {
      const theirs = bigC.get(k);
      if (!theirs) continue;
      const i = c.set.intersection(theirs.set);
      if (!i.empty()) children.set(k, { pe: c.pe, set: i });
    }
    return new FieldSet(members, children);
  }

  /** Members of this set that are not members of `o` (exact paths; children compared per level). */
  difference(o: FieldSet): FieldSet {
    if (o === this) return FieldSet.empty();
    if (o.empty() || this.empty()) return this;
    return this.minus(o, false);
  }

  /** Removes every path that equals or lies under a member of `o`. */
  recursiveDifference(o: FieldSet): FieldSet {
    if (o.empty() || this.empty()) return this;
    return this.minus(o, true);
  }

  private minus(o: FieldSet, recursive: boolean): FieldSet {
    const members = withoutKeys(this.members, o.members);
    let children = recursive ? withoutKeys(this.children, o.members) : this.children;
    const walk = children.size <= o.children.size ? children.keys() : o.children.keys();
    let out: Map<string, ChildNode> | undefined;
    for (const k of walk) {
      const mine = children.get(k);
      const theirs = o.children.get(k);
      if (!mine || !theirs) continue;
      const d = recursive ? mine.set.recursiveDifference(theirs.set) : mine.set.difference(theirs.set);
      if (d === mine.set) continue;
      out ??= new Map(children);
      if (d.empty()) out.delete(k);
      else out.set(k, { pe: mine.pe, set: d });
    }
    children = out ?? children;
    if (members === this.members && children === this.children) return this;
    return new FieldSet(members, children);
  }

  private sortedMembers(): PathElement[] {
    return sortedKeys(this.members, memberPe).map((k) => this.members.get(k) as PathElement);
  }

  private sortedChildren(): ChildNode[] {
    return sortedKeys(this.children, childPe).map((k) => this.children.get(k) as ChildNode);
  }

  /** Every member path, in upstream's iteration order (a level's members, then its children). */
  paths(): FieldPath[] {
    const out: FieldPath[] = [];
    const walk = (s: FieldSet, prefix: PathElement[]): void => {
      for (const pe of s.sortedMembers()) out.push([...prefix, pe]);
      for (const c of s.sortedChildren()) walk(c.set, [...prefix, c.pe]);
    };
    walk(this, []);
    return out;
  }

  /** The FieldsV1 JSON object (marked deep when nested deeper than DEEP_LEVELS: runtime/json/stringify.ts). */
  toFieldsV1(): JsonObject {
    const out = this.emit(false);
    if (emittedLevels > DEEP_LEVELS) markDeep(out);
    return out;
  }

  /** Members and children merged in PathElement order, each under its key (a member that has children: `.` first in them). */
  private emit(includeSelf: boolean): JsonObject {
    let levels = 0; // of the deepest child emitted
    const out: JsonObject = {};
    const members = sortedKeys(this.members, memberPe);
    const children = sortedKeys(this.children, childPe);
    if (includeSelf && (members.length > 0 || children.length > 0)) out['.'] = FIELDS_V1_LEAF;
    let mi = 0;
    let ci = 0;
    while (mi < members.length || ci < children.length) {
      let c: number;
      if (mi >= members.length) c = 1;
      else if (ci >= children.length) c = -1;
      else c = compareKeyed(members[mi], this.members.get(members[mi]) as PathElement, children[ci], (this.children.get(children[ci]) as ChildNode).pe);
      if (c < 0) {
        out[members[mi]] = FIELDS_V1_LEAF;
        mi++;
      } else {
        const child = (this.children.get(children[ci]) as ChildNode).set;
        if (c === 0) out[children[ci]] = child.empty() ? FIELDS_V1_LEAF : child.emit(true);
        else if (!child.empty()) out[children[ci]] = child.emit(false);
        if (!child.empty() && emittedLevels > levels) levels = emittedLevels;
        if (c === 0) mi++;
        ci++;
      }
    }
    emittedLevels = levels + 1;
    return out;
  }

  static fromFieldsV1(v: unknown): FieldSet {
    const s = FieldSet.empty();
    if (!isObject(v)) throw new FieldsV1Error('expected an object');
    s.read(v, Object.keys(v));
    return s;
  }

  // Recurses once per nesting level of the FieldsV1 object; `keys` are obj's own keys, taken once
  // (V8's for-in collects every key of a large object before the first one).
  private read(obj: JsonObject, keys: string[]): void {
    for (const k of keys) {
      if (k === '.') continue;
      const v = obj[k];
      // `f:<name>` is already the canonical key; other kinds are re-serialized (key order, JSON spacing)
      let pe: PathElement;
      let key: string;
      if (isFieldKey(k)) {
        pe = { field: k.slice(2) };
        key = k;
      } else ({ pe, key } = readElement(k));
      if (!isObject(v)) throw new FieldsV1Error(`expected an object for ${k}`);
      const childKeys = Object.keys(v);
      const self = Object.prototype.hasOwnProperty.call(v, '.');
      if (childKeys.length === 0 || self) this.members.set(key, pe);
      if (childKeys.length === (self ? 1 : 0)) continue; // `{}` and `{".": {}}` are members without children
      let c = this.children.get(key);
      if (!c) {
        c = { pe, set: FieldSet.empty() };
        this.children.set(key, c);
      }
      c.set.read(v, childKeys);
    }
  }

  toString(): string {
    return this.paths().map(pathToString).join('\n');
  }
}
