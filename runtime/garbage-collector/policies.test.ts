// The collector in process over a server assembled from out/ with memory storage (its own
// collector turned off; each test runs one): every propagation policy on owners of several kinds,
// namespaced, cluster-scoped and custom resources, each case carrying what must remain; then the
// rules on references (dangling from the start, uid mismatch, unknown kind, cluster-scoped
// dependent of a namespaced owner), foreground waiting on a dependent's finalizer, and a restart.

import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../errors/api-error.ts';
import { TokenAuthenticator } from '../http/auth.ts';
import { buildApiServer, loadGenerated, type BuiltServer } from '../http/bootstrap.ts';
import { metaOf, type Obj } from '../api/object.ts';
import type { Store } from '../registry/store.ts';
import { openStorage, type Storage } from '../storage/index.ts';
import { GarbageCollector, type GarbageCollectorEvent } from './controller.ts';
import { decideDependent, type DependentFacts } from './background-policy.ts';
import type { ClassifiedReferences } from './owner-resolver.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const GROUP = 'gc.example.cluster.io';

type Kind = 'ConfigMap' | 'StorageClass' | 'Widget';
const KINDS: Record<Kind, { group: string; plural: string; apiVersion: string; namespaced: boolean; body: Obj }> = {
  ConfigMap: { group: '', plural: 'configmaps', apiVersion: 'v1', namespaced: true, body: { data: { k: 'v' } } },
  StorageClass: { group: 'storage.cluster.io', plural: 'storageclasses', apiVersion: 'storage.cluster.io/v1', namespaced: false, body: { provisioner: 'example.com/p' } },
  Widget: { group: GROUP, plural: 'widgets', apiVersion: `${GROUP}/v1`, namespaced: true, body: { spec: { size: 1 } } },
};

let storage: Storage;
let built: BuiltServer;
let gc: GarbageCollector | undefined;
const logs: string[] = [];
const events: GarbageCollectorEvent[] = [];

function store(kind: Kind): Store {
  const k = KINDS[kind];
  const s = built.registry.storeFor(k.group, k.plural);
  if (!s) throw new Error(`no store for ${kind}`);
  return s;
}

async function until<T>(what: string, f: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Ref {
  kind: Kind;
  name: string;
  uid: string;
  block?: boolean;
}

async function create(kind: Kind, ns: string, name: string, owners: Ref[] = [], finalizers?: string[]): Promise<Ref> {
  const k = KINDS[kind];
  const metadata: Obj = { name };
  if (owners.length) {
    metadata.ownerReferences = owners.map((o) => ({ apiVersion: KINDS[o.kind].apiVersion, kind: o.kind, name: o.name, uid: o.uid, ...(o.block ? { blockOwnerDeletion: true } : {}) }));
  }
  if (finalizers) metadata.finalizers = finalizers;
  const res = await store(kind).create(k.namespaced ? ns : undefined, { apiVersion: k.apiVersion, kind, metadata, ...k.body }, {});
  return { kind, name, uid: String(metaOf(res.object).uid) };
}

async function read(kind: Kind, ns: string, name: string): Promise<Obj | undefined> {
  try {
    return await store(kind).get(KINDS[kind].namespaced ? ns : undefined, name);
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) return undefined;
    throw e;
  }
}

function ownerNames(obj: Obj): string[] {
  return ((metaOf(obj).ownerReferences ?? []) as { name: string }[]).map((r) => r.name).sort();
}

let nsCount = 0;
async function freshNamespace(): Promise<string> {
  const name = `gc-${++nsCount}`;
  await built.registry.storeFor('', 'namespaces')?.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, {});
  return name;
}

async function startCollector(): Promise<GarbageCollector> {
  gc = new GarbageCollector({ registry: built.registry, log: (m) => logs.push(m), recordEvent: (e) => events.push(e), baseBackoffMs: 50, maxBackoffMs: 200 });
  await gc.start();
  return gc;
}

beforeAll(async () => {
  const gen = await loadGenerated(join(ROOT, 'out'));
  storage = openStorage({ kind: 'memory' });
  built = await buildApiServer(gen, { storage, authenticator: TokenAuthenticator.fromCsv(''), admission: false, storageVersionMigration: false, garbageCollection: false });
  const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } };
  await built.registry.storeFor('apiextensions.cluster.io', 'customresourcedefinitions')?.create(
    undefined,
    {
      apiVersion: 'apiextensions.cluster.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `widgets.${GROUP}` },
      spec: { group: GROUP, scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true, schema }] },
    },
    {},
  );
  await until('widgets served', async () => built.registry.storeFor(GROUP, 'widgets'));
});

afterEach(() => {
  gc?.stop();
  gc = undefined;
});

afterAll(async () => {
  await built?.stop();
  await storage?.close();
});

interface DependentSpec {
  kind: Kind;
  name: string;
  /** `owner` (the one deleted) and/or names of `keepers` (owners that stay). */
  owners: string[];
  block?: boolean;
}

interface PolicyCase {
  name: string;
  owner: Kind;
  policy: 'Background' | 'Foreground' | 'Orphan';
  keepers?: { kind: Kind; name: string }[];
  dependents: DependentSpec[];
  /** Dependent name → owner names left on it; dependents not listed must be gone. */
  remaining: Record<string, string[]>;
}

const policyCases: PolicyCase[] = [
  {
    name: 'Background: a namespaced owner takes its ConfigMap and custom resource dependents',
    owner: 'ConfigMap',
    policy: 'Background',
    dependents: [
      { kind: 'ConfigMap', name: 'cm-dep', owners: ['owner'] },
      { kind: 'Widget', name: 'w-dep', owners: ['owner'] },
    ],
    remaining: {},
  },
  {
    name: 'Background: a dependent with a remaining owner keeps it and loses the dangling reference',
    owner: 'ConfigMap',
    policy: 'Background',
    keepers: [{ kind: 'StorageClass', name: 'keeper-a' }],
    dependents: [
      { kind: 'ConfigMap', name: 'two-owners', owners: ['owner', 'keeper-a'] },
      { kind: 'ConfigMap', name: 'one-owner', owners: ['owner'] },
    ],
    remaining: { 'two-owners': ['keeper-a'] },
  },
  {
    name: 'Background: a cluster-scoped owner takes namespaced and cluster-scoped dependents',
    owner: 'StorageClass',
    policy: 'Background',
    dependents: [
      { kind: 'ConfigMap', name: 'cm-of-sc', owners: ['owner'] },
      { kind: 'StorageClass', name: 'sc-of-sc', owners: ['owner'] },
      { kind: 'Widget', name: 'w-of-sc', owners: ['owner'] },
    ],
    remaining: {},
  },
  {
    name: 'Background: a chain owner → dependent → its dependent goes entirely',
    owner: 'Widget',
    policy: 'Background',
    dependents: [
      { kind: 'ConfigMap', name: 'child', owners: ['owner'] },
      { kind: 'ConfigMap', name: 'grandchild', owners: ['child'] },
    ],
    remaining: {},
  },
  {
    name: 'Foreground: blocking and non-blocking dependents are deleted, then the owner',
    owner: 'ConfigMap',
    policy: 'Foreground',
    dependents: [
      { kind: 'ConfigMap', name: 'blocking', owners: ['owner'], block: true },
      { kind: 'Widget', name: 'not-blocking', owners: ['owner'] },
    ],
    remaining: {},
  },
  {
    name: 'Foreground: a chain of blocking dependents is deleted bottom up',
    owner: 'StorageClass',
    policy: 'Foreground',
    dependents: [
      { kind: 'Widget', name: 'fg-child', owners: ['owner'], block: true },
      { kind: 'ConfigMap', name: 'fg-grandchild', owners: ['fg-child'], block: true },
    ],
    remaining: {},
  },
  {
    name: 'Foreground: a dependent with another owner keeps it and loses the reference to the deleted owner',
    owner: 'ConfigMap',
    policy: 'Foreground',
    keepers: [{ kind: 'ConfigMap', name: 'keeper-b' }],
    dependents: [{ kind: 'Widget', name: 'shared', owners: ['owner', 'keeper-b'], block: true }],
    remaining: { shared: ['keeper-b'] },
  },
  {
    name: 'Orphan: dependents stay without the reference',
    owner: 'StorageClass',
    policy: 'Orphan',
    keepers: [{ kind: 'StorageClass', name: 'keeper-c' }],
    dependents: [
      { kind: 'ConfigMap', name: 'orphan-cm', owners: ['owner'], block: true },
      { kind: 'Widget', name: 'orphan-w', owners: ['owner', 'keeper-c'] },
    ],
    remaining: { 'orphan-cm': [], 'orphan-w': ['keeper-c'] },
  },
  {
    name: 'Orphan: a custom resource owner',
    owner: 'Widget',
    policy: 'Orphan',
    dependents: [{ kind: 'ConfigMap', name: 'orphan-of-w', owners: ['owner'] }],
    remaining: { 'orphan-of-w': [] },
  },
];

describe('propagation policies', () => {
  it.each(policyCases)('$name', async (c) => {
    await startCollector();
    const ns = await freshNamespace();
    const suffix = `${nsCount}`;
    const named = new Map<string, Ref>();
    const ownerName = `owner-${suffix}`;
    named.set('owner', await create(c.owner, ns, ownerName));
    for (const k of c.keepers ?? []) named.set(k.name, await create(k.kind, ns, `${k.name}-${suffix}`));
    for (const d of c.dependents) {
      const owners = d.owners.map((o) => ({ ...(named.get(o) as Ref), block: d.block }));
      named.set(d.name, await create(d.kind, ns, `${d.name}-${suffix}`, owners));
    }
    await store(c.owner).delete(KINDS[c.owner].namespaced ? ns : undefined, ownerName, { propagationPolicy: c.policy });
    await until(`owner ${ownerName} gone`, async () => ((await read(c.owner, ns, ownerName)) ? undefined : true));
    for (const d of c.dependents) {
      const name = `${d.name}-${suffix}`;
      const expected = c.remaining[d.name];
      if (expected === undefined) {
        await until(`${d.kind} ${name} gone`, async () => ((await read(d.kind, ns, name)) ? undefined : true));
      } else {
        const want = expected.map((o) => `${o}-${suffix}`).sort();
        await until(`${d.kind} ${name} owned by [${want.join(', ')}]`, async () => {
          const obj = await read(d.kind, ns, name);
          return obj && JSON.stringify(ownerNames(obj)) === JSON.stringify(want) ? true : undefined;
        });
      }
    }
    await gc?.idle();
    for (const name of Object.keys(c.remaining)) {
      const d = c.dependents.find((x) => x.name === name) as DependentSpec;
      expect(await read(d.kind, ns, `${name}-${suffix}`), `${name} still there after the collector settled`).toBeDefined();
    }
  });
});

describe('references', () => {
  it('deletes a dependent whose owner never existed or has another uid, keeps one whose owner kind is unknown or invalid', async () => {
    const ns = await freshNamespace();
    const real = await create('ConfigMap', ns, 'real-owner');
    await create('ConfigMap', ns, 'never-owned', [{ kind: 'ConfigMap', name: 'ghost', uid: '00000000-0000-0000-0000-000000000001' }]);
    await create('ConfigMap', ns, 'uid-mismatch', [{ ...real, uid: '00000000-0000-0000-0000-000000000002' }]);
    await create('ConfigMap', ns, 'still-owned', [real]);
    // a kind no resource serves: retried, never collected
    const unknown = await store('ConfigMap').create(ns, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'unknown-kind', ownerReferences: [{ apiVersion: 'nowhere.cluster.io/v1', kind: 'Nothing', name: 'n', uid: '00000000-0000-0000-0000-000000000003' }] },
    });
    expect(metaOf(unknown.object).name).toBe('unknown-kind');
    // a cluster-scoped dependent naming a namespaced owner: invalid, left alone
    await create('StorageClass', ns, `invalid-${ns}`, [{ kind: 'ConfigMap', name: 'ghost', uid: '00000000-0000-0000-0000-000000000004' }]);
    await startCollector();
    await until('never-owned gone', async () => ((await read('ConfigMap', ns, 'never-owned')) ? undefined : true));
    await until('uid-mismatch gone', async () => ((await read('ConfigMap', ns, 'uid-mismatch')) ? undefined : true));
    await gc?.idle(2000);
    expect(await read('ConfigMap', ns, 'still-owned')).toBeDefined();
    expect(await read('ConfigMap', ns, 'unknown-kind')).toBeDefined();
    expect(await read('StorageClass', ns, `invalid-${ns}`)).toBeDefined();
    expect(logs.some((m) => m.includes('cluster-scoped objects cannot refer to namespaced owners'))).toBe(true);
    expect(logs.some((m) => m.includes('nowhere.cluster.io/v1/Nothing'))).toBe(true);
  });

  it('warns about a namespaced owner named from another namespace, and collects the dependent', async () => {
    await startCollector();
    const a = await freshNamespace();
    const b = await freshNamespace();
    const owner = await create('ConfigMap', a, 'owner-elsewhere');
    await create('ConfigMap', b, 'cross-namespace', [owner]);
    await until('cross-namespace gone', async () => ((await read('ConfigMap', b, 'cross-namespace')) ? undefined : true));
    expect(await read('ConfigMap', a, 'owner-elsewhere')).toBeDefined();
    const warning = events.find((e) => e.involved.name === 'cross-namespace');
    expect(warning).toMatchObject({ type: 'Warning', reason: 'OwnerRefInvalidNamespace' });
    expect(warning?.message).toBe(`ownerRef [v1/ConfigMap, namespace: ${b}, name: owner-elsewhere, uid: ${owner.uid}] does not exist in namespace "${b}"`);
  });
});

describe('foreground deletion', () => {
  it('keeps the owner with its finalizer while a blocking dependent stays, and completes once it goes', async () => {
    await startCollector();
    const ns = await freshNamespace();
    const owner = await create('ConfigMap', ns, 'fg-owner');
    await create('ConfigMap', ns, 'held', [{ ...owner, block: true }], ['example.cluster.io/hold']);
    await store('ConfigMap').delete(ns, 'fg-owner', { propagationPolicy: 'Foreground' });
    await until('held marked for deletion', async () => (metaOf((await read('ConfigMap', ns, 'held')) ?? {}).deletionTimestamp ? true : undefined));
    await gc?.idle(2000);
    const waiting = await read('ConfigMap', ns, 'fg-owner');
    expect(metaOf(waiting ?? {}).finalizers).toEqual(['foregroundDeletion']);
    expect(metaOf(waiting ?? {}).deletionTimestamp).toBeTruthy();
    await store('ConfigMap').patch(ns, 'held', (o) => ({ ...o, metadata: { ...metaOf(o), finalizers: [] } }));
    await until('fg-owner gone', async () => ((await read('ConfigMap', ns, 'fg-owner')) ? undefined : true));
  });

  it('completes for an owner without dependents', async () => {
    await startCollector();
    const ns = await freshNamespace();
    await create('StorageClass', ns, `lonely-${ns}`);
    await store('StorageClass').delete(undefined, `lonely-${ns}`, { propagationPolicy: 'Foreground' });
    await until('lonely gone', async () => ((await read('StorageClass', ns, `lonely-${ns}`)) ? undefined : true));
  });
});

describe('restart', () => {
  it('rebuilds the graph from storage: owners deleted while stopped are collected, half-done deletions finish', async () => {
    const ns = await freshNamespace();
    const bgOwner = await create('ConfigMap', ns, 'bg-owner');
    await create('Widget', ns, 'bg-dep', [bgOwner]);
    const orphanOwner = await create('ConfigMap', ns, 'orphan-owner');
    await create('ConfigMap', ns, 'orphan-dep', [orphanOwner]);
    const fgOwner = await create('StorageClass', ns, `fg-owner-${ns}`);
    await create('ConfigMap', ns, 'fg-dep', [{ ...fgOwner, block: true }]);
    // no collector runs while these happen
    await store('ConfigMap').delete(ns, 'bg-owner', { propagationPolicy: 'Background' });
    await store('ConfigMap').delete(ns, 'orphan-owner', { propagationPolicy: 'Orphan' });
    await store('StorageClass').delete(undefined, `fg-owner-${ns}`, { propagationPolicy: 'Foreground' });
    expect(await read('ConfigMap', ns, 'orphan-owner')).toBeDefined();
    await startCollector();
    await until('bg-dep gone', async () => ((await read('Widget', ns, 'bg-dep')) ? undefined : true));
    await until('orphan-owner gone', async () => ((await read('ConfigMap', ns, 'orphan-owner')) ? undefined : true));
    await until('fg-owner gone', async () => ((await read('StorageClass', ns, `fg-owner-${ns}`)) ? undefined : true));
    expect(await read('ConfigMap', ns, 'fg-dep')).toBeUndefined();
    expect(ownerNames((await read('ConfigMap', ns, 'orphan-dep')) as Obj)).toEqual([]);
    // stop and start again (as a new leader would): the graph is rebuilt, nothing else changes
    gc?.stop();
    await startCollector();
    expect(gc?.graphSize).toBeGreaterThan(0);
    await gc?.idle(2000);
    expect(await read('ConfigMap', ns, 'orphan-dep')).toBeDefined();
  });
});

describe('decideDependent', () => {
  const ref = (uid: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: uid, uid });
  const none: DependentFacts = { hasDependents: false, dependentDeletingInForeground: false, orphanFinalizer: false, foregroundFinalizer: false };
  const cases: { name: string; refs: Partial<ClassifiedReferences>; facts?: Partial<DependentFacts>; expected: ReturnType<typeof decideDependent> }[] = [
    { name: 'no references: kept', refs: {}, expected: { action: 'keep' } },
    { name: 'only solid owners: kept', refs: { solid: [ref('a')] }, expected: { action: 'keep' } },
    { name: 'solid and dangling: the dangling reference goes', refs: { solid: [ref('a')], dangling: [ref('b')] }, expected: { action: 'removeReferences', ownerUids: ['b'] } },
    {
      name: 'solid and waiting: the reference to the waiting owner goes',
      refs: { solid: [ref('a')], waitingForDependentsDeletion: [ref('c')] },
      expected: { action: 'removeReferences', ownerUids: ['c'] },
    },
    { name: 'all dangling: deleted in the background', refs: { dangling: [ref('a'), ref('b')] }, expected: { action: 'delete', policy: 'Background', unblockFirst: false } },
    { name: 'all dangling, orphan finalizer: deleted orphaning', refs: { dangling: [ref('a')] }, facts: { orphanFinalizer: true }, expected: { action: 'delete', policy: 'Orphan', unblockFirst: false } },
    { name: 'all dangling, foreground finalizer: deleted in the foreground', refs: { dangling: [ref('a')] }, facts: { foregroundFinalizer: true }, expected: { action: 'delete', policy: 'Foreground', unblockFirst: false } },
    { name: 'waiting owner, no dependents of its own: background', refs: { waitingForDependentsDeletion: [ref('a')] }, expected: { action: 'delete', policy: 'Background', unblockFirst: false } },
    { name: 'waiting owner, dependents of its own: foreground', refs: { waitingForDependentsDeletion: [ref('a')] }, facts: { hasDependents: true }, expected: { action: 'delete', policy: 'Foreground', unblockFirst: false } },
    {
      name: 'waiting owner, a dependent already deleting in the foreground: unblock first (cycle)',
      refs: { waitingForDependentsDeletion: [ref('a')] },
      facts: { hasDependents: true, dependentDeletingInForeground: true },
      expected: { action: 'delete', policy: 'Foreground', unblockFirst: true },
    },
  ];
  it.each(cases)('$name', ({ refs, facts, expected }) => {
    expect(decideDependent({ solid: [], dangling: [], waitingForDependentsDeletion: [], ...refs }, { ...none, ...facts })).toEqual(expected);
  });
});
