// Namespace writes as upstream's namespace strategy makes them: the name label (always the name) and
// the `cluster` finalizer on create, kept by updates of the main resource.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { namespaceResource } from '../../../out/routes/namespace.ts';
import * as validators from '../../../out/validators/index.ts';
import { lazyValidator } from '../../http/bootstrap.ts';
import { MemoryStorage } from '../../storage/memory.ts';
import type { Obj } from '../../api/object.ts';
import { strategyFixtures, strategyVerdict } from './strategy-fixtures.ts';
import { NamespaceController } from '../namespace-controller.ts';
import { Registry } from '../registry.ts';
import type { Store } from '../store.ts';
import { finalizersOnDelete, NAMESPACE_FINALIZER, NAMESPACE_NAME_LABEL, namespaceStrategy } from './namespace.ts';

interface Case {
  name: string;
  body: Obj;
  labels: Record<string, string>;
  finalizers: string[];
}

const createCases: Case[] = [
  { name: 'bare namespace', body: { metadata: { name: 'a' } }, labels: { [NAMESPACE_NAME_LABEL]: 'a' }, finalizers: [NAMESPACE_FINALIZER] },
  {
    name: 'other labels kept, a wrong name label overridden',
    body: { metadata: { name: 'b', labels: { team: 'x', [NAMESPACE_NAME_LABEL]: 'other' } } },
    labels: { team: 'x', [NAMESPACE_NAME_LABEL]: 'b' },
    finalizers: [NAMESPACE_FINALIZER],
  },
  {
    name: 'own finalizers kept, cluster appended',
    body: { metadata: { name: 'c' }, spec: { finalizers: ['example.com/keep'] } },
    labels: { [NAMESPACE_NAME_LABEL]: 'c' },
    finalizers: ['example.com/keep', NAMESPACE_FINALIZER],
  },
  {
    name: 'cluster finalizer given: not repeated',
    body: { metadata: { name: 'd' }, spec: { finalizers: [NAMESPACE_FINALIZER] } },
    labels: { [NAMESPACE_NAME_LABEL]: 'd' },
    finalizers: [NAMESPACE_FINALIZER],
  },
];

describe('namespace strategy', () => {
  let storage: MemoryStorage;
  let nss: Store;
  let controller: NamespaceController;
  let registry: Registry;

  beforeEach(async () => {
    storage = new MemoryStorage({ autoCompaction: false });
    registry = new Registry(storage, [{ descriptor: namespaceResource, validator: lazyValidator(() => validators.Namespace.createValidator()) }], {});
    await registry.init();
    nss = registry.storeFor('', 'namespaces') as Store;
    // the namespace controller finishes Terminating namespaces, as in the server
    controller = new NamespaceController({ registry });
    await controller.start();
  });
  afterEach(async () => {
    controller.stop();
    registry.stop();
    await storage.close();
  });

  it.each(createCases)('create: $name', async ({ body, labels, finalizers }) => {
    const created = (await nss.create(undefined, structuredClone(body))).object;
    expect(created.metadata).toMatchObject({ labels });
    expect((created.metadata as Obj).labels).toEqual(labels);
    expect(created.spec).toEqual({ finalizers });
    expect(created.status).toEqual({ phase: 'Active' });
  });

  it('labels a generated name with the generated name', async () => {
    const created = (await nss.create(undefined, { metadata: { generateName: 'gen-' } })).object;
    const m = created.metadata as { name: string; labels: Record<string, string> };
    expect(m.labels[NAMESPACE_NAME_LABEL]).toBe(m.name);
  });

  it('labels the default namespace', async () => {
    const d = await nss.get(undefined, 'default');
    expect((d.metadata as Obj).labels).toEqual({ [NAMESPACE_NAME_LABEL]: 'default' });
  });

  it('keeps spec.finalizers and the name label on update', async () => {
    await nss.create(undefined, { metadata: { name: 'u' } });
    const updated = (await nss.update(undefined, 'u', { metadata: { name: 'u', labels: { [NAMESPACE_NAME_LABEL]: 'changed', x: 'y' } }, spec: { finalizers: [] } })).object;
    expect((updated.metadata as Obj).labels).toEqual({ [NAMESPACE_NAME_LABEL]: 'u', x: 'y' });
    expect(updated.spec).toEqual({ finalizers: [NAMESPACE_FINALIZER] });
  });

  it('keeps the name label on a merge patch that removes it', async () => {
    await nss.create(undefined, { metadata: { name: 'p' } });
    const patched = (await nss.patch(undefined, 'p', (cur) => ({ ...cur, metadata: { ...(cur.metadata as Obj), labels: {} } }))).object;
    expect((patched.metadata as Obj).labels).toEqual({ [NAMESPACE_NAME_LABEL]: 'p' });
  });

  it('still deletes a namespace that has the cluster finalizer', async () => {
    await nss.create(undefined, { metadata: { name: 'gone' } });
    const r = await nss.delete(undefined, 'gone');
    expect(r.kind).toBe('object');
    for (let i = 0; i < 50; i++) {
      const left = await nss.get(undefined, 'gone').catch(() => undefined);
      if (!left) return;
      await new Promise((res) => setTimeout(res, 100));
    }
    throw new Error('namespace not removed');
  });
});

// Upstream's namespace validation the strategy answers (ValidateNamespaceStatusUpdate), checked
// against every fixture of test/fixtures/objects/namespace: `strategyWant`, none when absent.
const fixtures = strategyFixtures('namespace');

describe('namespace strategy against the fixtures', () => {
  it('has fixtures the strategy refuses', () => {
    expect(fixtures.filter(([, f]) => (f.strategyWant ?? []).length > 0).length).toBeGreaterThanOrEqual(2);
  });
  it.each(fixtures)('%s', (_name, f) => {
    expect(strategyVerdict(namespaceStrategy, f)).toEqual(f.strategyWant ?? []);
  });
  it('accepts a main-resource update, whose status is the stored one', () => {
    const old: Obj = { metadata: { name: 'a' }, status: { phase: 'Active' } };
    expect(namespaceStrategy.validateUpdate!({ metadata: { name: 'a', labels: { x: 'y' } }, status: { phase: 'Active' } }, old)).toEqual([]);
  });
});

describe("a namespace's first DELETE sets metadata.finalizers from its options (upstream's shouldHave...Finalizer)", () => {
  it.each([
    { name: 'no options: unchanged', current: ['example.com/x'], options: {}, want: ['example.com/x'] },
    { name: 'no options: an orphan finalizer it has stays', current: ['orphan'], options: {}, want: ['orphan'] },
    { name: 'Foreground', current: undefined, options: { propagationPolicy: 'Foreground' }, want: ['foregroundDeletion'] },
    { name: 'Orphan replaces foregroundDeletion', current: ['foregroundDeletion', 'example.com/x'], options: { propagationPolicy: 'Orphan' }, want: ['example.com/x', 'orphan'] },
    { name: 'Background removes both', current: ['orphan', 'example.com/x'], options: { propagationPolicy: 'Background' }, want: ['example.com/x'] },
    { name: 'orphanDependents true', current: undefined, options: { orphanDependents: true }, want: ['orphan'] },
    { name: 'orphanDependents false: foreground (upstream)', current: undefined, options: { orphanDependents: false }, want: ['foregroundDeletion'] },
  ])('$name', ({ current, options, want }) => {
    expect(finalizersOnDelete(current, options) ?? []).toEqual(want);
  });
  it('returns the same array when nothing changes', () => {
    const current = ['example.com/x'];
    expect(finalizersOnDelete(current, { propagationPolicy: 'Background' })).toBe(current);
  });
});
