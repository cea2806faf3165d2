// The dependency graph alone: each case is a sequence of observed changes and what the last one
// must ask of the collector (queued uids, orphan requests, invalid-namespace warnings, absent owner).

import { describe, expect, it } from 'vitest';
import type { Obj } from '../api/object.ts';
import { DependencyGraph, referencesDiff } from './dependency-graph.ts';

interface Ref {
  uid: string;
  kind?: string;
  name?: string;
  apiVersion?: string;
  block?: boolean;
}

interface ObjSpec {
  uid: string;
  name?: string;
  namespace?: string;
  kind?: string;
  apiVersion?: string;
  owners?: Ref[];
  deleting?: boolean;
  finalizers?: string[];
}

type Step = { observe: ObjSpec } | { forget: string };

/** ConfigMaps in `ns` by default; `sc:` uids are StorageClasses (cluster-scoped). */
function objectOf(o: ObjSpec): { obj: Obj; apiVersion: string; kind: string; resource: string } {
  const cluster = o.uid.startsWith('sc:');
  const kind = o.kind ?? (cluster ? 'StorageClass' : 'ConfigMap');
  const apiVersion = o.apiVersion ?? (cluster ? 'storage.cluster.io/v1' : 'v1');
  const metadata: Obj = { name: o.name ?? o.uid.replace('sc:', ''), uid: o.uid };
  if (!cluster) metadata.namespace = o.namespace ?? 'ns';
  if (o.owners) {
    metadata.ownerReferences = o.owners.map((r) => {
      const ownerCluster = r.uid.startsWith('sc:');
      return {
        apiVersion: r.apiVersion ?? (ownerCluster ? 'storage.cluster.io/v1' : 'v1'),
        kind: r.kind ?? (ownerCluster ? 'StorageClass' : 'ConfigMap'),
        name: r.name ?? r.uid.replace('sc:', ''),
        uid: r.uid,
        ...(r.block !== undefined ? { blockOwnerDeletion: r.block } : {}),
      };
    });
  }
  if (o.deleting) metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
  if (o.finalizers) metadata.finalizers = o.finalizers;
  return { obj: { apiVersion, kind, metadata }, apiVersion, kind, resource: cluster ? 'storage.cluster.io/storageclasses' : '/configmaps' };
}

interface Case {
  name: string;
  steps: Step[];
  expected: { attemptToDelete?: string[]; attemptToOrphan?: string[]; invalidNamespace?: string[]; absentOwner?: string; blocking?: Record<string, string[]> };
}

const cases: Case[] = [
  { name: 'an object without owners asks for nothing', steps: [{ observe: { uid: 'a' } }], expected: {} },
  { name: 'a dependent of an owner not observed is verified', steps: [{ observe: { uid: 'd', owners: [{ uid: 'o' }] } }], expected: { attemptToDelete: ['d'] } },
  { name: 'a dependent of an observed owner needs no look', steps: [{ observe: { uid: 'o' } }, { observe: { uid: 'd', owners: [{ uid: 'o' }] } }], expected: {} },
  {
    name: 'an owner observed after its dependent under the same coordinates asks for nothing',
    steps: [{ observe: { uid: 'd', owners: [{ uid: 'o' }] } }, { observe: { uid: 'o' } }],
    expected: {},
  },
  {
    name: 'deleting an owner queues its dependents and records it absent',
    steps: [{ observe: { uid: 'o' } }, { observe: { uid: 'd1', owners: [{ uid: 'o' }] } }, { observe: { uid: 'd2', owners: [{ uid: 'o' }, { uid: 'x' }] } }, { forget: 'o' }],
    expected: { attemptToDelete: ['d1', 'd2'], absentOwner: 'o' },
  },
  { name: 'deleting an owner without dependents asks for nothing', steps: [{ observe: { uid: 'o' } }, { forget: 'o' }], expected: {} },
  {
    name: 'foreground deletion starting queues every dependent, then the owner',
    steps: [
      { observe: { uid: 'o' } },
      { observe: { uid: 'd1', owners: [{ uid: 'o', block: true }] } },
      { observe: { uid: 'd2', owners: [{ uid: 'o' }] } },
      { observe: { uid: 'o', deleting: true, finalizers: ['foregroundDeletion'] } },
    ],
    expected: { attemptToDelete: ['d1', 'd2', 'o'], blocking: { o: ['d1'] } },
  },
  {
    name: 'the same foreground state observed again asks for nothing',
    steps: [{ observe: { uid: 'o', deleting: true, finalizers: ['foregroundDeletion'] } }, { observe: { uid: 'o', deleting: true, finalizers: ['foregroundDeletion'] } }],
    expected: {},
  },
  {
    name: 'an object first seen in foreground deletion (after a restart) is queued',
    steps: [{ observe: { uid: 'o', deleting: true, finalizers: ['foregroundDeletion'] } }],
    expected: { attemptToDelete: ['o'] },
  },
  {
    name: 'orphan deletion starting asks for orphaning, not deletion',
    steps: [{ observe: { uid: 'o' } }, { observe: { uid: 'd', owners: [{ uid: 'o' }] } }, { observe: { uid: 'o', deleting: true, finalizers: ['orphan'] } }],
    expected: { attemptToOrphan: ['o'] },
  },
  {
    name: 'a blocking dependent deleted queues its owner waiting in the foreground',
    steps: [
      { observe: { uid: 'o' } },
      { observe: { uid: 'd', owners: [{ uid: 'o', block: true }] } },
      { observe: { uid: 'o', deleting: true, finalizers: ['foregroundDeletion'] } },
      { forget: 'd' },
    ],
    expected: { attemptToDelete: ['o'], blocking: { o: [] } },
  },
  {
    name: 'a blocking reference removed from a dependent queues the owner',
    steps: [{ observe: { uid: 'o' } }, { observe: { uid: 'd', owners: [{ uid: 'o', block: true }] } }, { observe: { uid: 'd' } }],
    expected: { attemptToDelete: ['o'], blocking: { o: [] } },
  },
  {
    name: 'blockOwnerDeletion turned off queues the owner',
    steps: [{ observe: { uid: 'o' } }, { observe: { uid: 'd', owners: [{ uid: 'o', block: true }] } }, { observe: { uid: 'd', owners: [{ uid: 'o', block: false }] } }],
    expected: { attemptToDelete: ['o'] },
  },
  {
    name: 'a non-blocking reference removed asks for nothing',
    steps: [{ observe: { uid: 'o' } }, { observe: { uid: 'd', owners: [{ uid: 'o' }] } }, { observe: { uid: 'd' } }],
    expected: {},
  },
  {
    name: 'a namespaced owner named from another namespace is reported and the dependent verified',
    steps: [{ observe: { uid: 'o', namespace: 'a' } }, { observe: { uid: 'd', namespace: 'b', owners: [{ uid: 'o' }] } }],
    expected: { attemptToDelete: ['d'], invalidNamespace: ['d'] },
  },
  {
    name: 'the same, with the owner observed after the dependent',
    steps: [{ observe: { uid: 'd', namespace: 'b', owners: [{ uid: 'o' }] } }, { observe: { uid: 'o', namespace: 'a' } }],
    expected: { attemptToDelete: ['d'], invalidNamespace: ['d'] },
  },
  {
    name: 'a cluster-scoped owner named from any namespace is fine',
    steps: [{ observe: { uid: 'sc:o' } }, { observe: { uid: 'd', namespace: 'b', owners: [{ uid: 'sc:o' }] } }],
    expected: {},
  },
  {
    name: 'a reference by another kind than observed is verified',
    steps: [{ observe: { uid: 'o' } }, { observe: { uid: 'd', owners: [{ uid: 'o', kind: 'Secret' }] } }],
    expected: { attemptToDelete: ['d'] },
  },
  {
    name: 'a reference by another version of the same group matches',
    steps: [{ observe: { uid: 'sc:o' } }, { observe: { uid: 'd', owners: [{ uid: 'sc:o', apiVersion: 'storage.cluster.io/v1beta1' }] } }],
    expected: {},
  },
  {
    name: 'a dependent appearing under an owner waiting in the foreground is queued',
    steps: [{ observe: { uid: 'o', deleting: true, finalizers: ['foregroundDeletion'] } }, { observe: { uid: 'd', owners: [{ uid: 'o', block: true }] } }],
    expected: { attemptToDelete: ['d'], blocking: { o: ['d'] } },
  },
];

describe('DependencyGraph', () => {
  it.each(cases)('$name', ({ steps, expected }) => {
    const g = new DependencyGraph();
    let fx = g.forget('none');
    for (const step of steps) {
      if ('forget' in step) fx = g.forget(step.forget);
      else {
        const { obj, apiVersion, kind, resource } = objectOf(step.observe);
        fx = g.observe(resource, obj, apiVersion, kind);
      }
    }
    expect([...fx.attemptToDelete].sort()).toEqual([...(expected.attemptToDelete ?? [])].sort());
    expect(fx.attemptToOrphan).toEqual(expected.attemptToOrphan ?? []);
    expect(fx.invalidNamespaceReferences.map((r) => r.dependent.uid)).toEqual(expected.invalidNamespace ?? []);
    expect(fx.absentOwner?.uid).toBe(expected.absentOwner);
    for (const [owner, deps] of Object.entries(expected.blocking ?? {})) {
      expect(g.blockingDependents(owner).map((n) => n.identity.uid).sort()).toEqual(deps);
    }
  });

  it('keeps the dependents of an owner not observed, and hands them to it once observed', () => {
    const g = new DependencyGraph();
    const d = objectOf({ uid: 'd', owners: [{ uid: 'o', block: true }] });
    g.observe(d.resource, d.obj, d.apiVersion, d.kind);
    expect(g.dependents('o').map((n) => n.identity.uid)).toEqual(['d']);
    const o = objectOf({ uid: 'o' });
    g.observe(o.resource, o.obj, o.apiVersion, o.kind);
    expect(g.blockingDependents('o').map((n) => n.identity.uid)).toEqual(['d']);
    expect(g.ownersAllPresent('d')).toBe(true);
    g.forget('o');
    expect(g.ownersAllPresent('d')).toBe(false);
    expect(g.dependents('o').map((n) => n.identity.uid)).toEqual(['d']);
  });
});

describe('referencesDiff', () => {
  const r = (uid: string, block?: boolean) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: uid, uid, ...(block === undefined ? {} : { blockOwnerDeletion: block }) });
  it.each([
    { name: 'unchanged', old: [r('a')], now: [r('a')], added: [], removed: [], changed: [] },
    { name: 'added and removed', old: [r('a')], now: [r('b')], added: ['b'], removed: ['a'], changed: [] },
    { name: 'changed by blockOwnerDeletion', old: [r('a', true)], now: [r('a', false)], added: [], removed: [], changed: ['a'] },
  ])('$name', ({ old, now, added, removed, changed }) => {
    const d = referencesDiff(old, now);
    expect(d.added.map((x) => x.uid)).toEqual(added);
    expect(d.removed.map((x) => x.uid)).toEqual(removed);
    expect(d.changed.map(([, x]) => x.uid)).toEqual(changed);
  });
});
