// Strategic merge patch and server-side apply on lists of thousands of items. Before the merge-key
// indexes and Go's stable sort, a 5,000-entry `$setElementOrder` ran for tens of minutes (cubic);
// now each case takes milliseconds, well inside vitest's 5 s default timeout. Every case checks
// its whole result, not only that it finishes.

import { describe, expect, it } from 'vitest';
import { apply } from './apply.ts';
import { deduplicateScalars } from './dedupe-scalars.ts';
import { goSliceStable } from './go-sort.ts';
import { applyStrategicMergePatch } from './strategic-merge.ts';
import { defs, kind } from './test-defs.ts';

const N = 5000;
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
const ownerRef = (i: number, name = `p${i}`) => ({ apiVersion: 'v1', kind: 'Pod', name, uid: `uid-${i}` });
const configMap = (metadata: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big', ...metadata } });
const driver = (i: number, nodeID = `n${i}`) => ({ name: `d${i}.cluster.io`, nodeID });
const csiNode = (drivers: unknown[]) => ({ apiVersion: 'storage.cluster.io/v1', kind: 'CSINode', metadata: { name: 'node' }, spec: { drivers } });
const reversed = range(N).reverse();
const evens = range(N).filter((i) => i % 2 === 0);
const odds = range(N).filter((i) => i % 2 === 1);

interface Case {
  name: string;
  kind: string;
  original: unknown;
  patch: unknown;
  want: unknown;
}

const cases: Case[] = [
  {
    name: `$setElementOrder reverses ${N} ownerReferences`,
    kind: 'ConfigMap',
    original: configMap({ ownerReferences: range(N).map((i) => ownerRef(i)) }),
    patch: { metadata: { '$setElementOrder/ownerReferences': reversed.map((i) => ({ uid: `uid-${i}` })) } },
    want: configMap({ ownerReferences: reversed.map((i) => ownerRef(i)) }),
  },
  {
    name: `$setElementOrder reverses ${N} CSINode drivers`,
    kind: 'CSINode',
    original: csiNode(range(N).map((i) => driver(i))),
    patch: { spec: { '$setElementOrder/drivers': reversed.map((i) => ({ name: `d${i}.cluster.io` })) } },
    want: csiNode(reversed.map((i) => driver(i))),
  },
  {
    name: `merge by key: ${N} ownerReferences patched in reverse order keep the patch order`,
    kind: 'ConfigMap',
    original: configMap({ ownerReferences: range(N).map((i) => ownerRef(i)) }),
    patch: { metadata: { ownerReferences: reversed.map((i) => ({ uid: `uid-${i}`, name: `q${i}` })) } },
    want: configMap({ ownerReferences: reversed.map((i) => ownerRef(i, `q${i}`)) }),
  },
  {
    name: `$setElementOrder with half of ${N} drivers changed: server-only items keep their place`,
    kind: 'CSINode',
    original: csiNode(range(N).map((i) => driver(i))),
    patch: {
      spec: {
        '$setElementOrder/drivers': reversed.map((i) => ({ name: `d${i}.cluster.io` })),
        drivers: reversed.filter((i) => i % 2 === 0).map((i) => ({ name: `d${i}.cluster.io`, nodeID: `m${i}` })),
      },
    },
    want: csiNode(reversed.map((i) => driver(i, i % 2 === 0 ? `m${i}` : `n${i}`))),
  },
  {
    name: `$patch: delete of ${N / 2} of ${N} ownerReferences`,
    kind: 'ConfigMap',
    original: configMap({ ownerReferences: range(N).map((i) => ownerRef(i)) }),
    patch: { metadata: { ownerReferences: evens.map((i) => ({ uid: `uid-${i}`, $patch: 'delete' })) } },
    want: configMap({ ownerReferences: odds.map((i) => ownerRef(i)) }),
  },
  {
    // upstream's mergeSortedSlice: an item the server does not know goes before the server's items
    name: `${N} new ownerReferences go before ${N} existing ones`,
    kind: 'ConfigMap',
    original: configMap({ ownerReferences: range(N).map((i) => ownerRef(i)) }),
    patch: { metadata: { ownerReferences: range(N).map((i) => ownerRef(N + i)) } },
    want: configMap({ ownerReferences: [...range(N).map((i) => ownerRef(N + i)), ...range(N).map((i) => ownerRef(i))] }),
  },
  {
    name: `finalizers: ${N / 2} deleted with $deleteFromPrimitiveList, ${N / 2} added, all reordered`,
    kind: 'ConfigMap',
    original: configMap({ finalizers: range(N).map((i) => `f${i}.cluster.io/x`) }),
    patch: {
      metadata: {
        '$setElementOrder/finalizers': [...evens.map((i) => `g${i}.cluster.io/x`), ...reversed.filter((i) => i % 2 === 0).map((i) => `f${i}.cluster.io/x`)],
        finalizers: evens.map((i) => `g${i}.cluster.io/x`),
        '$deleteFromPrimitiveList/finalizers': odds.map((i) => `f${i}.cluster.io/x`),
      },
    },
    want: configMap({ finalizers: [...evens.map((i) => `g${i}.cluster.io/x`), ...reversed.filter((i) => i % 2 === 0).map((i) => `f${i}.cluster.io/x`)] }),
  },
  {
    name: `finalizers merged as a set: ${N} repeats of existing values are dropped`,
    kind: 'ConfigMap',
    original: configMap({ finalizers: range(N).map((i) => `f${i}`) }),
    patch: { metadata: { finalizers: range(N).map((i) => `f${i}`) } },
    want: configMap({ finalizers: range(N).map((i) => `f${i}`) }),
  },
];

describe('strategic merge patch on large lists', () => {
  for (const c of cases) {
    it(c.name, () => {
      expect(applyStrategicMergePatch(c.original, c.patch, kind(c.kind), defs)).toEqual(c.want);
    });
  }
});

describe('server-side apply on large lists', () => {
  const opts = { manager: 'm', force: false, apiVersion: 'v1', kind: 'ConfigMap', now: '2026-01-01T00:00:00Z' };
  it(`reorders ${N} ownerReferences and owns each by its key`, () => {
    const first = apply(undefined, configMap({ ownerReferences: range(N).map((i) => ownerRef(i)) }), opts, kind('ConfigMap'), defs);
    const second = apply(first.object, configMap({ ownerReferences: reversed.map((i) => ownerRef(i)) }), opts, kind('ConfigMap'), defs);
    const meta = second.object.metadata as { ownerReferences: { uid: string }[] };
    expect(meta.ownerReferences.map((r) => r.uid)).toEqual(reversed.map((i) => `uid-${i}`));
    const owned = (second.managedFields[0].fieldsV1 as { 'f:metadata': { 'f:ownerReferences': Record<string, unknown> } })['f:metadata']['f:ownerReferences'];
    expect(Object.keys(owned).sort()).toEqual(range(N).map((i) => `k:{"uid":"uid-${i}"}`).sort());
  });
});

// Upstream's deduplicateScalars, the O(n²) original: the reference for the order it leaves.
function referenceDedupe(input: unknown[]): unknown[] {
  let s = [...input];
  let length = s.length - 1;
  for (let i = 0; i < length; i++) {
    for (let j = i + 1; j <= length; j++) {
      if (s[i] === s[j]) {
        s[j] = s[length];
        s = s.slice(0, length);
        length--;
        j--;
      }
    }
  }
  return s;
}

describe('deduplicateScalars keeps upstream order', () => {
  const table: { input: unknown[]; want: unknown[] }[] = [
    { input: [], want: [] },
    { input: ['a'], want: ['a'] },
    { input: ['a', 'a'], want: ['a'] },
    { input: ['a', 'b', 'a', 'c'], want: ['a', 'b', 'c'] },
    { input: ['a', 'b', 'a', 'c', 'd'], want: ['a', 'b', 'd', 'c'] },
    { input: ['a', 'a', 'b', 'a', 'b'], want: ['a', 'b'] },
    { input: [1, 2, 1, 2, 3, 1], want: [1, 2, 3] },
    { input: [true, false, true, null, null], want: [true, false, null] },
  ];
  for (const { input, want } of table) {
    it(JSON.stringify(input), () => {
      expect(referenceDedupe(input)).toEqual(want);
      expect(deduplicateScalars(input)).toEqual(want);
    });
  }
  it('agrees with the reference on seeded random lists', () => {
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 48271) % 2147483647;
      return seed % n;
    };
    for (let t = 0; t < 2000; t++) {
      const input = Array.from({ length: next(40) }, () => next(8));
      expect(deduplicateScalars(input)).toEqual(referenceDedupe(input));
    }
  });
  it(`removes ${N * 10} repeats of a few values`, () => {
    const input = range(N * 10).map((i) => `v${i % 7}`);
    expect(deduplicateScalars(input)).toEqual(referenceDedupe(input.slice(0, 200)));
  });
});

describe('goSliceStable', () => {
  it('is a stable sort for a strict order, beyond one insertion-sort block', () => {
    let seed = 11;
    for (let t = 0; t < 200; t++) {
      const items = Array.from({ length: 1 + (t * 37) % 400 }, (_, i) => {
        seed = (seed * 48271) % 2147483647;
        return { key: seed % 25, at: i };
      });
      const got = [...items];
      goSliceStable(got, (a, b) => a.key < b.key);
      expect(got).toEqual([...items].sort((a, b) => a.key - b.key));
    }
  });
  it('is insertion sort up to 20 items, whatever the comparator', () => {
    // upstream's comparator when no item is in the order list: always "less"
    const got = range(20);
    goSliceStable(got, () => true);
    expect(got).toEqual(range(20).reverse());
  });
});
