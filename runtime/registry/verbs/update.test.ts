// The Store's UPDATE: a PUT body, a patch and an update that may create all go through one
// guaranteed update; one case per row, then the retry when another writer gets in between.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { meta, type Obj } from '../../api/object.ts';
import { patchedBy } from '../rest/updated-object.ts';
import type { UpdatedObjectInfo, UpdateOptions } from '../store-types.ts';
import { rejection } from '../../errors/test-support.ts';
import { testRegistry, type TestRegistry } from './test-registry.ts';

type Body = (current: Obj) => Obj;

interface Case {
  name: string;
  /** The PUT body, from the stored object `a` (data {k: v}). */
  body: Body;
  opts?: UpdateOptions;
  wantData?: Obj;
  /** The resourceVersion moved (a write happened). */
  wrote?: boolean;
  wantError?: { code: number; message: string };
}

const cases: Case[] = [
  { name: 'a change', body: (c) => ({ ...c, data: { k: 'w' } }), wantData: { k: 'w' }, wrote: true },
  { name: 'no change: nothing written', body: (c) => c, wantData: { k: 'v' }, wrote: false },
  { name: 'unconditional (no resourceVersion)', body: (c) => ({ ...c, metadata: { ...(c.metadata as Obj), resourceVersion: undefined }, data: { k: 'u' } }), wantData: { k: 'u' }, wrote: true },
  {
    name: 'a stale resourceVersion',
    body: (c) => ({ ...c, metadata: { ...(c.metadata as Obj), resourceVersion: '1' } }),
    wantError: { code: 409, message: 'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again' },
  },
  {
    name: 'another name in the body',
    body: (c) => ({ ...c, metadata: { ...(c.metadata as Obj), name: 'b' } }),
    wantError: { code: 400, message: 'the name of the object (b) does not match the name on the URL (a)' },
  },
  { name: 'dry run', body: (c) => ({ ...c, data: { k: 'dry' } }), opts: { dryRun: true }, wantData: { k: 'v' }, wrote: false },
];

describe('Store.update', () => {
  let t: TestRegistry;
  let stored: Obj;
  beforeEach(async () => {
    t = await testRegistry();
    stored = (await t.configMaps.create('default', { metadata: { name: 'a' }, data: { k: 'v' } })).object;
  });
  afterEach(async () => {
    await t.close();
  });

  it.each(cases)('$name', async (c) => {
    const rv = meta(stored).resourceVersion;
    const body = c.body(structuredClone(stored));
    if (c.wantError) {
      const e = await rejection(t.configMaps.update('default', 'a', body, c.opts));
      expect({ code: e.code, message: e.message }).toEqual(c.wantError);
      return;
    }
    await t.configMaps.update('default', 'a', body, c.opts);
    const now = await t.configMaps.get('default', 'a');
    expect(now.data).toEqual(c.wantData);
    expect(meta(now).resourceVersion !== rv).toBe(c.wrote);
  });

  it('a missing object is 404, and created when the update may create', async () => {
    const info: UpdatedObjectInfo = { updatedObject: (cur) => cur ?? { metadata: { name: 'new' }, data: { x: '1' } } };
    const e = await rejection(t.configMaps.update('default', 'new', info));
    expect([e.code, e.message]).toEqual([404, 'configmaps "new" not found']);
    const r = await t.configMaps.update('default', 'new', info, { allowCreate: true });
    expect(r.created).toBe(true);
    expect((await t.configMaps.get('default', 'new')).data).toEqual({ x: '1' });
    const again = await t.configMaps.update('default', 'new', { updatedObject: (cur) => ({ ...(cur as Obj), data: { x: '2' } }) }, { allowCreate: true });
    expect(again.created).toBeFalsy();
  });

  it('re-applies a patch when another writer got in between (one retry loop), and keeps a 409 for a patch that names a stale resourceVersion', async () => {
    let calls = 0;
    const concurrent = patchedBy((cur) => {
      calls++;
      if (calls === 1) {
        // another writer commits between this read and this write
        void t.storage.update(t.configMaps.key('default', 'a'), JSON.stringify({ ...cur, metadata: { ...(cur.metadata as Obj), resourceVersion: undefined }, data: { k: 'other', n: '1' } }), Number(meta(cur).resourceVersion));
      }
      return { ...cur, data: { ...(cur.data as Obj), k: 'mine' } };
    });
    await t.configMaps.update('default', 'a', concurrent);
    expect(calls).toBe(2);
    expect((await t.configMaps.get('default', 'a')).data).toEqual({ k: 'mine', n: '1' });
    const stale = patchedBy((cur) => ({ ...cur, metadata: { ...(cur.metadata as Obj), resourceVersion: meta(stored).resourceVersion } }));
    expect((await rejection(t.configMaps.update('default', 'a', stale))).code).toBe(409);
  });

  it('removes a deleting object whose last finalizer goes', async () => {
    await t.configMaps.create('default', { metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    await t.configMaps.delete('default', 'held');
    const held = await t.configMaps.get('default', 'held');
    expect(meta(held).deletionTimestamp).toBeTruthy();
    await t.configMaps.update('default', 'held', { ...held, metadata: { ...meta(held), finalizers: [] } });
    expect((await rejection(t.configMaps.get('default', 'held'))).code).toBe(404);
  });
});
