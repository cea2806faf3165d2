// CEL equality (cross-type numbers, set and map list kinds, object types, nanosecond time) and the
// list-kind-aware `+` that shares its key comparison. Separate as cel-go keeps Equal in common/types.

import { chargeCost, traversalCost } from './runtime-cost.ts';
import { compareTime } from './time.ts';
import { CelObject, Duration, listKindOf, markList, Optional, UnsignedInt } from './values.ts';

export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  switch (typeof a) {
    case 'bigint':
      if (typeof b === 'number') return Number(a) === b && BigInt(Math.trunc(b)) === a;
      if (b instanceof UnsignedInt) return a === b.valueOf();
      return false;
    case 'number':
      if (typeof b === 'bigint') return celEquals(b, a);
      if (b instanceof UnsignedInt) return a === Number(b.valueOf()) && Number.isInteger(a);
      return false;
    case 'string':
    case 'boolean':
    case 'undefined':
      return false;
  }
  // uint is an object: compare it with int/double before the object-only checks below
  if (a instanceof UnsignedInt) {
    if (b instanceof UnsignedInt) return a.valueOf() === b.valueOf();
    return typeof b === 'bigint' || typeof b === 'number' ? celEquals(b, a) : false;
  }
  if (a === null || b === null || typeof b !== 'object' || typeof a !== 'object') return false;
  if (a instanceof Uint8Array) {
    if (!(b instanceof Uint8Array) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  if (a instanceof Date || a instanceof Duration) return compareTime(a, b) === 0;
  if (a instanceof Optional) {
    if (!(b instanceof Optional)) return false;
    if (!a.hasValue() || !b.hasValue()) return a.hasValue() === b.hasValue();
    return celEquals(a.value(), b.value());
  }
  if (Array.isArray(a)) return Array.isArray(b) && listEquals(a, b);
  if (a instanceof CelObject) {
    if (!(b instanceof CelObject) || a.constructor !== b.constructor) return false;
    return entriesEqual(a, b);
  }
  if (isCelMap(a)) return isCelMap(b) && entriesEqual(toEntriesMap(a), toEntriesMap(b));
  if (a instanceof Set || b instanceof Set) return false;
  const eq = (a as { celEquals?: (o: unknown) => boolean }).celEquals;
  if (typeof eq === 'function') return eq.call(a, b);
  return false;
}

function isCelMap(v: object): boolean {
  const c = v.constructor;
  return c === undefined || c === Object || c === Map;
}

function toEntriesMap(v: object): Map<unknown, unknown> {
  if (v instanceof Map) return v;
  return new Map(Object.entries(v));
}

function entriesEqual(a: Map<unknown, unknown>, b: Map<unknown, unknown>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) {
    let other: unknown = b.get(k);
    if (other === undefined) {
      // numeric keys compare across int/uint/double
      let found = false;
      for (const [k2, v2] of b) {
        if (celEquals(k, k2)) {
          other = v2;
          found = true;
          break;
        }
      }
      if (!found) return false;
    }
    if (!celEquals(v, other)) return false;
  }
  return true;
}

function mapListKey(el: unknown, keys: string[]): unknown[] | undefined {
  if (!(el instanceof Map)) return undefined;
  return keys.map((k) => el.get(k));
}

function keysEqual(a: unknown[] | undefined, b: unknown[] | undefined): boolean {
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!celEquals(a[i], b[i])) return false;
  return true;
}

function listEquals(a: unknown[], b: unknown[]): boolean {
  if (a.length !== b.length) return false;
  chargeCost(traversalCost(a.length));
  const kind = listKindOf(a) ?? listKindOf(b);
  if (kind?.type === 'set') {
    // every element of b is in a (sizes equal, sets hold no duplicates)
    outer: for (const y of b) {
      for (const x of a) if (celEquals(x, y)) continue outer;
      return false;
    }
    for (const x of a) {
      let found = false;
      for (const y of b) if (celEquals(x, y)) { found = true; break; }
      if (!found) return false;
    }
    return true;
  }
  if (kind?.type === 'map') {
    for (const y of b) {
      const ky = mapListKey(y, kind.keys);
      const x = a.find((e) => keysEqual(mapListKey(e, kind.keys), ky));
      if (x === undefined || !celEquals(x, y)) return false;
    }
    return true;
  }
  for (let i = 0; i < a.length; i++) if (!celEquals(a[i], b[i])) return false;
  return true;
}

/** `X + Y` for lists: set keeps X and appends disjoint Y; map lets Y override equal keys. */
export function listConcat(a: unknown[], b: unknown[]): unknown[] {
  chargeCost(traversalCost(a.length + b.length));
  const kind = listKindOf(a);
  if (kind?.type === 'set') {
    const out = [...a];
    for (const y of b) if (!out.some((x) => celEquals(x, y))) out.push(y);
    return markList(out, kind);
  }
  if (kind?.type === 'map') {
    const out = [...a];
    for (const y of b) {
      const ky = mapListKey(y, kind.keys);
      const idx = out.findIndex((x) => keysEqual(mapListKey(x, kind.keys), ky));
      if (idx >= 0) out[idx] = y;
      else out.push(y);
    }
    return markList(out, kind);
  }
  return [...a, ...b];
}
