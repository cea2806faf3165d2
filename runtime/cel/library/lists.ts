// Kubernetes lists library: isSorted, sum, min, max, indexOf, lastIndexOf; and the sets library.

import { celEquals } from '../equality.ts';
import type { CelRegistrar } from '../registrar.ts';
import { chargeCost, traversalCost } from '../runtime-cost.ts';
import { checkTimeRange, compareTime, durationFromNanos, durationNanos } from '../time.ts';
import { celError, Duration, UnsignedInt } from '../values.ts';

function cmp(a: unknown, b: unknown): number {
  if (typeof a === 'bigint' || typeof a === 'number') {
    const x = a;
    const y = b instanceof UnsignedInt ? b.valueOf() : b;
    if (typeof y !== 'bigint' && typeof y !== 'number') throw celError('no such overload: comparison');
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (a instanceof UnsignedInt) return cmp(a.valueOf(), b);
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const t = compareTime(a, b);
  if (t !== undefined) return t;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b);
  const c = (a as { compareTo?: (o: unknown) => bigint | number }).compareTo;
  if (typeof c === 'function') return Number(c.call(a, b));
  throw celError('no such overload: list elements are not comparable');
}

export function listIndexOf(l: unknown[], v: unknown): bigint {
  chargeCost(traversalCost(l.length));
  for (let i = 0; i < l.length; i++) if (celEquals(l[i], v)) return BigInt(i);
  return -1n;
}

export function listLastIndexOf(l: unknown[], v: unknown): bigint {
  chargeCost(traversalCost(l.length));
  for (let i = l.length - 1; i >= 0; i--) if (celEquals(l[i], v)) return BigInt(i);
  return -1n;
}

export function listsLibrary(r: CelRegistrar): void {
  r.fn('list<A>.isSorted(): bool', ((l: unknown[]) => {
    chargeCost(traversalCost(l.length));
    for (let i = 1; i < l.length; i++) if (cmp(l[i - 1], l[i]) > 0) return false;
    return true;
  }) as never);
  r.fn('list<int>.sum(): int', ((l: bigint[]) => {
    let s = 0n;
    for (const x of l) s += x;
    if (s > 9223372036854775807n || s < -9223372036854775808n) throw celError('integer overflow');
    return s;
  }) as never);
  r.fn('list<double>.sum(): double', ((l: number[]) => l.reduce((a, b) => a + b, 0)) as never);
  r.fn('list<uint>.sum(): uint', ((l: UnsignedInt[]) => new UnsignedInt(l.reduce((a, b) => a + b.valueOf(), 0n))) as never);
  r.fn('list<google.protobuf.Duration>.sum(): google.protobuf.Duration', ((l: Duration[]) =>
    checkTimeRange(durationFromNanos(l.reduce((a, b) => a + durationNanos(b), 0n)))) as never);
  const pick = (dir: number) => (l: unknown[]) => {
    if (l.length === 0) throw celError(`${dir < 0 ? 'min' : 'max'}() called on an empty list`);
    chargeCost(traversalCost(l.length));
    let best = l[0];
    for (const x of l) if (cmp(x, best) * dir > 0) best = x;
    return best;
  };
  r.fn('list<A>.min(): A', pick(-1) as never);
  r.fn('list<A>.max(): A', pick(1) as never);
  r.fn('list<A>.indexOf(A): int', listIndexOf as never);
  r.fn('list<A>.lastIndexOf(A): int', listLastIndexOf as never);

  const ns = r.namespace('sets');
  const contains = (a: unknown[], b: unknown[]): boolean => {
    chargeCost(traversalCost(a.length * Math.max(1, b.length)));
    return b.every((y) => a.some((x) => celEquals(x, y)));
  };
  r.fn(`${ns}.contains(list<A>, list<A>): bool`, ((_n: unknown, a: unknown[], b: unknown[]) => contains(a, b)) as never);
  r.fn(`${ns}.equivalent(list<A>, list<A>): bool`, ((_n: unknown, a: unknown[], b: unknown[]) => contains(a, b) && contains(b, a)) as never);
  r.fn(`${ns}.intersects(list<A>, list<A>): bool`, ((_n: unknown, a: unknown[], b: unknown[]) => {
    chargeCost(traversalCost(a.length * Math.max(1, b.length)));
    return b.some((y) => a.some((x) => celEquals(x, y)));
  }) as never);
}
