// Field paths and field sets as structured-merge-diff's `fieldpath` package models them, with the
// FieldsV1 wire format of managedFields:
//   `f:<name>` a field, `k:{"name":"x"}` a map-list element by its keys, `v:<json>` a set-list
//   value, `i:<n>` an index, and `.` (inside a node that has children) the node itself.

import { isObject, type JsonObject } from '../json/is-object.ts';
import { compareStrings } from './schema-nav.ts';

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

/** A set of field paths (structured-merge-diff fieldpath.Set): members at this level plus child sets. */
export class FieldSet {
  readonly members = new Map<string, PathElement>();
  readonly children = new Map<string, ChildNode>();

  static fromPaths(paths: Iterable<FieldPath>): FieldSet {
    const s = new FieldSet();
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
      n = { pe, set: new FieldSet() };
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

  copy(): FieldSet {
    const s = new FieldSet();
    for (const [k, pe] of this.members) s.members.set(k, pe);
    for (const [k, c] of this.children) s.children.set(k, { pe: c.pe, set: c.set.copy() });
    return s;
  }

  // Each node of either set is visited once (copying this set first and merging into the copy
  // copied every subtree again at each level below: O(depth²)).
  union(o: FieldSet): FieldSet {
    const s = new FieldSet();
    for (const [k, pe] of this.members) s.members.set(k, pe);
    for (const [k, pe] of o.members) s.members.set(k, pe);
    for (const [k, c] of this.children) {
      const theirs = o.children.get(k);
      s.children.set(k, theirs ? { pe: theirs.pe, set: c.set.union(theirs.set) } : { pe: c.pe, set: c.set.copy() });
    }
    for (const [k, c] of o.children) if (!this.children.has(k)) s.children.set(k, { pe: c.pe, set: c.set.copy() });
    return s;
  }

  intersection(o: FieldSet): FieldSet {
    const s = new FieldSet();
    for (const [k, pe] of this.members) if (o.members.has(k)) s.members.set(k, pe);
    for (const [k, c] of this.children) {
      const theirs = o.children.get(k);
      if (!theirs) continue;
      const i = c.set.intersection(theirs.set);
      if (!i.empty()) s.children.set(k, { pe: c.pe, set: i });
    }
    return s;
  }

  /** Members of this set that are not members of `o` (exact paths; children compared per level). */
  difference(o: FieldSet): FieldSet {
    const s = new FieldSet();
    for (const [k, pe] of this.members) if (!o.members.has(k)) s.members.set(k, pe);
    for (const [k, c] of this.children) {
      const theirs = o.children.get(k);
      const d = theirs ? c.set.difference(theirs.set) : c.set.copy();
      if (!d.empty()) s.children.set(k, { pe: c.pe, set: d });
    }
    return s;
  }

  /** Removes every path that equals or lies under a member of `o`. */
  recursiveDifference(o: FieldSet): FieldSet {
    const s = new FieldSet();
    for (const [k, pe] of this.members) if (!o.members.has(k)) s.members.set(k, pe);
    for (const [k, c] of this.children) {
      if (o.members.has(k)) continue;
      const theirs = o.children.get(k);
      const d = theirs ? c.set.recursiveDifference(theirs.set) : c.set.copy();
      if (!d.empty()) s.children.set(k, { pe: c.pe, set: d });
    }
    return s;
  }

  private sortedMembers(): PathElement[] {
    return [...this.members.values()].sort(comparePathElements);
  }

  private sortedChildren(): ChildNode[] {
    return [...this.children.values()].sort(compareChildNodes);
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

  /** The FieldsV1 JSON object. */
  toFieldsV1(): JsonObject {
    return this.emit(false);
  }

  private emit(includeSelf: boolean): JsonObject {
    const out: JsonObject = {};
    const members = this.sortedMembers();
    const children: ChildNode[] = [];
    for (const c of this.sortedChildren()) if (!c.set.empty()) children.push(c);
    if (includeSelf && (members.length > 0 || children.length > 0)) out['.'] = {};
    let mi = 0;
    let ci = 0;
    while (mi < members.length || ci < children.length) {
      const c = mi < members.length && ci < children.length ? comparePathElements(members[mi], children[ci].pe) : mi < members.length ? -1 : 1;
      if (c < 0) {
        out[serializePathElement(members[mi])] = {};
        mi++;
      } else if (c > 0) {
        out[serializePathElement(children[ci].pe)] = children[ci].set.emit(false);
        ci++;
      } else {
        out[serializePathElement(children[ci].pe)] = children[ci].set.emit(true);
        mi++;
        ci++;
      }
    }
    return out;
  }

  static fromFieldsV1(v: unknown): FieldSet {
    const s = new FieldSet();
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
      const pe = k.startsWith('f:') ? { field: k.slice(2) } : deserializePathElement(k);
      const key = k.startsWith('f:') ? k : serializePathElement(pe);
      if (!isObject(v)) throw new FieldsV1Error(`expected an object for ${k}`);
      const childKeys = Object.keys(v);
      const self = Object.prototype.hasOwnProperty.call(v, '.');
      if (childKeys.length === 0 || self) this.members.set(key, pe);
      if (childKeys.length === (self ? 1 : 0)) continue; // `{}` and `{".": {}}` are members without children
      let c = this.children.get(key);
      if (!c) {
        c = { pe, set: new FieldSet() };
        this.children.set(key, c);
      }
      c.set.read(v, childKeys);
    }
  }

  toString(): string {
    return this.paths().map(pathToString).join('\n');
  }
}
