// The informer over a real Store on memory storage: its first state, the changes after it, a
// relist after the watch ends (what changed meanwhile reported as changes), and running without a cache.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { meta, type Obj } from '../api/object.ts';
import { testRegistry, type TestRegistry } from '../registry/verbs/test-registry.ts';
import { Informer, type InformerEventType, type WatchSource } from './informer.ts';

/** The store as a WatchSource whose current watch the test can end (as storage closing or compaction does). */
function cuttable(source: WatchSource): WatchSource & { cut(): void } {
  let end: (() => void) | undefined;
  return {
    async watch(ns, params, sink) {
      const stream = await source.watch(ns, params, sink);
      end = () => {
        stream.stop();
        sink.end();
      };
      return stream;
    },
    cut: () => end?.(),
  };
}

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (ok()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`not reached: ${what}`);
}

describe('Informer', () => {
  let t: TestRegistry;
  let informer: Informer | undefined;
  beforeEach(async () => {
    t = await testRegistry();
  });
  afterEach(async () => {
    informer?.stop();
    await t.close();
  });

  const cm = (name: string, data: Obj = {}): Obj => ({ metadata: { name }, data });

  it('caches the first state, follows the changes, and after a relist reports what changed meanwhile', async () => {
    await t.configMaps.create('default', cm('kept'));
    await t.configMaps.create('default', cm('goes'));
    const seen: [InformerEventType, string][] = [];
    const source = cuttable(t.configMaps);
    informer = new Informer(source, { onChange: (type, o) => seen.push([type, String(meta(o).name)]), restartDelayMs: 10, log: () => undefined });
    await informer.start();
    expect(informer.live).toBe(true);
    expect(informer.list().map((o) => meta(o).name).sort()).toEqual(['goes', 'kept']);
    await t.configMaps.create('default', cm('new'));
    await until('the create', () => informer?.get('default/new') !== undefined);

    source.cut();
    // while no watch runs: one goes, one changes, one comes
    await t.configMaps.delete('default', 'goes');
    const kept = await t.configMaps.get('default', 'kept');
    await t.configMaps.update('default', 'kept', { ...kept, data: { v: '2' } });
    await t.configMaps.create('default', cm('later'));
    await until('the relist', () => informer?.get('default/later') !== undefined);
    expect(informer.get('default/goes')).toBeUndefined();
    expect(informer.get('default/kept')?.data).toEqual({ v: '2' });
    expect(seen.slice(2).sort()).toEqual(
      [
        ['ADDED', 'new'],
        ['ADDED', 'later'],
        ['DELETED', 'goes'],
        ['MODIFIED', 'kept'],
      ].sort(),
    );
    expect(seen.slice(0, 2).map(([type]) => type)).toEqual(['ADDED', 'ADDED']);
  });

  it('without a cache: each list through onSynced, live changes through onChange, nothing kept', async () => {
    await t.configMaps.create('default', cm('a'));
    const synced: string[][] = [];
    const changes: [InformerEventType, string, boolean][] = [];
    informer = new Informer(t.configMaps, {
      cache: false,
      onSynced: (objects) => synced.push(objects.map((o) => String(meta(o).name))),
      onChange: (type, o, _old, relisted) => changes.push([type, String(meta(o).name), relisted]),
    });
    await informer.start();
    await t.configMaps.create('default', cm('b'));
    await until('the create', () => changes.length > 0);
    expect(synced).toEqual([['a']]);
    expect(changes).toEqual([['ADDED', 'b', false]]);
    expect(informer.list()).toEqual([]);
  });
});
