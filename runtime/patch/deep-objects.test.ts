// Managed fields and server-side apply on deeply nested objects are linear in the depth. Each
// case counts the Map operations (get, set, has, iteration) a call performs at depth d and 2d: a
// linear walk doubles them, the former ones (a path copied per level, each insert walking from the
// root, a recursive emptiness check per level) quadrupled them, which at the decoder's limit of
// 10,000 levels meant seconds per request. Counts, not timings: the assertion cannot flake.

import { afterEach, describe, expect, it } from 'vitest';
import { apply } from './apply.ts';
import { FieldSet } from './fieldpath.ts';
import { updateManagedFields } from './managed-fields.ts';
import { compare, toFieldSet } from './typed.ts';

const counted = ['get', 'set', 'has', 'values', 'entries', 'keys', Symbol.iterator] as const;
const originals = counted.map((m) => Map.prototype[m as keyof Map<unknown, unknown>]);
let ops = 0;

/** The Map operations `f` performs. */
function mapOps(f: () => unknown): number {
  ops = 0;
  counted.forEach((m, i) => {
    const orig = originals[i] as (...a: unknown[]) => unknown;
    Object.defineProperty(Map.prototype, m, {
      configurable: true,
      writable: true,
      value: function (this: Map<unknown, unknown>, ...a: unknown[]) {
        ops++;
        return orig.apply(this, a);
      },
    });
  });
  try {
    f();
  } finally {
    restore();
  }
  return ops;
}

function restore(): void {
  counted.forEach((m, i) => Object.defineProperty(Map.prototype, m, { configurable: true, writable: true, value: originals[i] }));
}

afterEach(restore);

/** `{a: {a: ... leaf}}`, `depth` levels, under spec of an untyped object (a custom resource's preserved fields). */
function nested(depth: number, leaf: unknown): Record<string, unknown> {
  let o: unknown = leaf;
  for (let i = 0; i < depth; i++) o = { a: o };
  return { apiVersion: 'v1', kind: 'X', metadata: { name: 'x' }, spec: o };
}

const now = '2026-01-01T00:00:00Z';
const D = 400;

const cases: { name: string; run: (depth: number) => unknown }[] = [
  { name: 'toFieldSet', run: (d) => toFieldSet(nested(d, 1), undefined, {}) },
  { name: 'compare, leaf changed', run: (d) => compare(nested(d, 1), nested(d, 2), undefined, {}) },
  { name: 'compare, subtree added', run: (d) => compare({}, nested(d, 1), undefined, {}) },
  {
    name: 'updateManagedFields after a change at the bottom',
    run: (d) => {
      const created = updateManagedFields(undefined, nested(d, 1), { manager: 'a', apiVersion: 'v1', now }, undefined, {});
      return updateManagedFields(created, nested(d, 2), { manager: 'b', apiVersion: 'v1', now }, undefined, {});
    },
  },
  { name: 'apply (create)', run: (d) => apply(undefined, nested(d, 1), { manager: 'm', force: false, apiVersion: 'v1', now }, undefined, {}) },
  {
    name: 'apply again with a change (prune and ownership)',
    run: (d) => {
      const first = apply(undefined, nested(d, 1), { manager: 'm', force: false, apiVersion: 'v1', now }, undefined, {});
      return apply(first.object, nested(d, 2), { manager: 'm', force: false, apiVersion: 'v1', now }, undefined, {});
    },
  },
  {
    name: 'FieldSet union, difference, intersection, FieldsV1 round trip',
    run: (d) => {
      const a = toFieldSet(nested(d, 1), undefined, {});
      const b = toFieldSet(nested(d, { b: 1 }), undefined, {});
      return FieldSet.fromFieldsV1(a.union(b).difference(a.intersection(b)).toFieldsV1());
    },
  },
];

describe('deep objects: Map operations grow linearly with the depth', () => {
  for (const c of cases) {
    it(c.name, () => {
      const small = mapOps(() => c.run(D));
      const large = mapOps(() => c.run(2 * D));
      expect(small).toBeGreaterThan(D);
      expect(large / small).toBeLessThan(2.3);
    });
  }
});

describe('FieldSet never keeps an empty child set', () => {
  const table: { fieldsV1: Record<string, unknown>; children: number; members: number; encoded: Record<string, unknown> }[] = [
    { fieldsV1: { 'f:a': {} }, children: 0, members: 1, encoded: { 'f:a': {} } },
    // a member with nothing below it: no child set, and it encodes as a plain member
    { fieldsV1: { 'f:a': { '.': {} } }, children: 0, members: 1, encoded: { 'f:a': {} } },
    { fieldsV1: { 'f:a': { '.': {}, 'f:b': {} } }, children: 1, members: 1, encoded: { 'f:a': { '.': {}, 'f:b': {} } } },
    { fieldsV1: { 'f:a': { 'f:b': {} } }, children: 1, members: 0, encoded: { 'f:a': { 'f:b': {} } } },
  ];
  for (const { fieldsV1, children, members, encoded } of table) {
    it(JSON.stringify(fieldsV1), () => {
      const s = FieldSet.fromFieldsV1(fieldsV1);
      expect(s.children.size).toBe(children);
      expect(s.members.size).toBe(members);
      expect(s.toFieldsV1()).toEqual(encoded);
    });
  }
});
