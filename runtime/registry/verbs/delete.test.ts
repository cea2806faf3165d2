// The Store's DELETE of one object and of a collection: options, preconditions, finalizers and
// propagation policies, one case per row.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { meta, type Obj } from '../../api/object.ts';
import type { DeleteOptions } from '../store-types.ts';
import { rejection } from '../../errors/test-support.ts';
import { testRegistry, type TestRegistry } from './test-registry.ts';

interface Case {
  name: string;
  finalizers?: string[];
  opts?: (stored: Obj) => DeleteOptions;
  /** The object is still there afterwards, with these finalizers. */
  keptWith?: string[];
  wantError?: { code: number; message: string };
}

const cases: Case[] = [
  { name: 'no finalizer: gone' },
  { name: 'a finalizer: marked, kept', finalizers: ['example.com/hold'], keptWith: ['example.com/hold'] },
  { name: 'Foreground: foregroundDeletion added', opts: () => ({ propagationPolicy: 'Foreground' }), keptWith: ['foregroundDeletion'] },
  { name: 'Orphan: orphan added', opts: () => ({ propagationPolicy: 'Orphan' }), keptWith: ['orphan'] },
  { name: 'orphanDependents: orphan added', opts: () => ({ orphanDependents: true }), keptWith: ['orphan'] },
  { name: 'dry run: nothing changes', opts: () => ({ dryRun: true }), keptWith: [] },
  {
    name: 'an unknown propagation policy',
    opts: () => ({ propagationPolicy: 'Sometimes' }),
    wantError: { code: 422, message: 'DeleteOptions.meta.cluster.io "" is invalid: propagationPolicy: Unsupported value: "Sometimes": supported values: "Foreground", "Background", "Orphan", "nil"' },
  },
  {
    name: 'a UID precondition that does not hold',
    opts: () => ({ preconditions: { uid: 'other' } }),
    wantError: { code: 409, message: expect.stringMatching(/^Operation cannot be fulfilled on configmaps "a": Precondition failed: UID in precondition: other, UID in object meta: /) as unknown as string },
  },
  {
    name: 'a resourceVersion precondition that does not hold',
    opts: () => ({ preconditions: { resourceVersion: '1' } }),
    wantError: { code: 409, message: expect.stringMatching(/^Operation cannot be fulfilled on configmaps "a": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: \d+$/) as unknown as string },
  },
  { name: 'preconditions that hold', opts: (s) => ({ preconditions: { uid: meta(s).uid, resourceVersion: meta(s).resourceVersion } }) },
];

describe('Store.delete', () => {
  let t: TestRegistry;
  beforeEach(async () => {
    t = await testRegistry();
  });
  afterEach(async () => {
    await t.close();
  });

  it.each(cases)('$name', async (c) => {
    const stored = (await t.configMaps.create('default', { metadata: c.finalizers ? { name: 'a', finalizers: c.finalizers } : { name: 'a' } })).object;
    const opts = c.opts?.(stored) ?? {};
    if (c.wantError) {
      const e = await rejection(t.configMaps.delete('default', 'a', opts));
      expect({ code: e.code, message: e.message }).toEqual(c.wantError);
      return;
    }
    const r = await t.configMaps.delete('default', 'a', opts);
    const left = await t.configMaps.get('default', 'a').catch(() => undefined);
    if (c.keptWith === undefined) {
      expect(left).toBeUndefined();
      expect(r.kind).toBe('status');
      return;
    }
    expect(left).toBeDefined();
    expect(meta(left as Obj).finalizers ?? []).toEqual(c.keptWith);
    expect(Boolean(meta(left as Obj).deletionTimestamp)).toBe(c.keptWith.length > 0);
  });

  it('a missing object is 404', async () => {
    expect((await rejection(t.configMaps.delete('default', 'none'))).message).toBe('configmaps "none" not found');
  });

  it('deletes a collection by selector, answering the matched items as they were', async () => {
    for (const [name, team] of [['a', 'x'], ['b', 'y'], ['c', 'x']]) await t.configMaps.create('default', { metadata: { name, labels: { team } } });
    const r = await t.configMaps.deleteCollection('default', { labelSelector: 'team=x' }, {});
    expect(r.list.items.map((i) => meta(i).name)).toEqual(['a', 'c']);
    expect((await t.configMaps.list('default')).items.map((i) => meta(i).name)).toEqual(['b']);
  });
});
