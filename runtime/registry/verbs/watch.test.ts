// The Store's WATCH: the initial events and the changes after them, through a label selection
// (an object that stops matching is DELETED for the watcher), and the streaming list's bookmark.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { meta, type Obj } from '../../api/object.ts';
import type { ListParams, WatchEventType } from '../store-types.ts';
import { rejection } from '../../errors/test-support.ts';
import { testRegistry, type TestRegistry } from './test-registry.ts';

describe('Store.watch', () => {
  let t: TestRegistry;
  beforeEach(async () => {
    t = await testRegistry();
  });
  afterEach(async () => {
    await t.close();
  });

  async function watchAll(params: ListParams): Promise<{ events: [WatchEventType, string][]; stop: () => void }> {
    const events: [WatchEventType, string][] = [];
    const s = await t.configMaps.watch('default', params, {
      send: (type, o: Obj) => events.push([type, type === 'BOOKMARK' ? `@${String(meta(o).annotations?.['cluster.io/initial-events-end'] ?? '')}` : String(meta(o).name)]),
      error: (e) => events.push(['ERROR', e.message]),
      end: () => undefined,
    });
    return { events, stop: () => s.stop() };
  }

  it('sends the current state, then the changes the selection sees', async () => {
    await t.configMaps.create('default', { metadata: { name: 'in', labels: { team: 'x' } } });
    await t.configMaps.create('default', { metadata: { name: 'out', labels: { team: 'y' } } });
    const w = await watchAll({ labelSelector: 'team=x' });
    const moved = await t.configMaps.get('default', 'out');
    await t.configMaps.update('default', 'out', { ...moved, metadata: { ...meta(moved), labels: { team: 'x' } } });
    const left = await t.configMaps.get('default', 'in');
    await t.configMaps.update('default', 'in', { ...left, metadata: { ...meta(left), labels: { team: 'z' } } });
    await t.configMaps.delete('default', 'out');
    // the watcher catches up asynchronously: wait for the four events (bounded)
    for (let i = 0; i < 100 && w.events.length < 4; i++) await new Promise((r) => setTimeout(r, 20));
    w.stop();
    expect(w.events).toEqual([
      ['ADDED', 'in'],
      ['ADDED', 'out'],
      ['DELETED', 'in'],
      ['DELETED', 'out'],
    ]);
  });

  it('ends the streaming list with the initial-events-end bookmark', async () => {
    await t.configMaps.create('default', { metadata: { name: 'a' } });
    const w = await watchAll({ sendInitialEvents: true, resourceVersionMatch: 'NotOlderThan', allowWatchBookmarks: true });
    w.stop();
    expect(w.events).toEqual([
      ['ADDED', 'a'],
      ['BOOKMARK', '@true'],
    ]);
  });

  it.each([
    { name: 'sendInitialEvents without NotOlderThan', params: { sendInitialEvents: true }, want: 'resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan' },
    { name: 'a selector that does not parse', params: { labelSelector: 'a in (' }, want: undefined },
  ])('refuses $name before streaming (400/422)', async ({ params, want }) => {
    const e = await rejection(watchAll(params));
    expect([400, 422]).toContain(e.code);
    if (want) expect(e.message).toContain(want);
  });
});
