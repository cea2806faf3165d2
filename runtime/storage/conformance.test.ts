// One conformance suite, run against every backend (etcd: a throwaway member per test).

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EtcdStorage } from './etcd.ts';
import { etcdSkipReason, startEtcdMember } from './etcd-test-member.ts';
import { StorageError, isStorageError, keyAfter, type KeyValue, type Storage, type StorageErrorCode } from './interface.ts';
import { backends, collect, settle, type Collector, type Fixture } from './test-support.ts';

interface ConformanceBackend {
  readonly name: string;
  /** The revision of a fresh store: 0, or 1 for etcd (a new member starts at revision 1). */
  readonly initialRevision: number;
  open(): Fixture | Promise<Fixture>;
}

const etcdSkip = etcdSkipReason();
if (etcdSkip) console.warn(`storage conformance: ${etcdSkip}`);

const etcdBackend: ConformanceBackend = {
  name: 'etcd',
  initialRevision: 1,
  async open(): Promise<Fixture> {
    const member = await startEtcdMember();
    const store = new EtcdStorage({ endpoints: [member.endpoint], compactionIntervalSeconds: 0 });
    const f: Fixture = {
      store,
      cleanup: async () => {
        await f.store.close();
        await member.stop();
      },
    };
    return f;
  },
};

const conformanceBackends: ConformanceBackend[] = [...backends.map((b) => ({ ...b, initialRevision: 0 })), ...(etcdSkip ? [] : [etcdBackend])];

const P = '/core/configmaps/';
const k = (ns: string, name: string) => `${P}${ns}/${name}`;

async function expectCode(p: Promise<unknown>, code: StorageErrorCode): Promise<StorageError> {
  try {
    await p;
  } catch (e) {
    expect(isStorageError(e)).toBe(true);
    expect((e as StorageError).code).toBe(code);
    return e as StorageError;
  }
  throw new Error(`expected a ${code} error, got success`);
}

/**
 * Waits until a sentinel write under `prefix` reaches the watcher: every event of a write made
 * before it has then arrived too (a backend whose watchers are remote delivers after the write resolves).
 */
async function barrier(s: Storage, w: Collector, prefix: string): Promise<void> {
  const rev = await s.create(`${prefix}zz-barrier-${Math.random().toString(36).slice(2)}`, 'b');
  const deadline = Date.now() + 5000;
  while (!w.events.some((e) => e.modRevision === rev)) {
    if (w.error) throw w.error;
    if (Date.now() > deadline) throw new Error(`timed out waiting for the barrier at ${rev}`);
    await new Promise((r) => setTimeout(r, 2));
  }
  w.events.splice(w.events.findIndex((e) => e.modRevision === rev), 1);
}

/** Polls `done` (events of remote watchers arrive after the write resolves) for up to 10 s. */
async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe.each(conformanceBackends)('storage conformance: $name', (backend: ConformanceBackend) => {
  let f: Fixture;
  let s: Storage;
  /** The fresh store's revision: every revision below is relative to it. */
  let base: number;
  beforeEach(async () => {
    f = await backend.open();
    s = f.store;
    base = backend.initialRevision;
  });
  afterEach(async () => {
    await f.cleanup();
  });

  it('create assigns increasing global revisions; a second create is KeyExists', async () => {
    expect(await s.currentRevision()).toBe(base);
    const r1 = await s.create(k('a', 'x'), '{"v":1}');
    const r2 = await s.create(k('a', 'y'), '{"v":2}');
    expect([r1, r2]).toEqual([base + 1, base + 2]);
    const err = await expectCode(s.create(k('a', 'x'), '{"v":3}'), 'KeyExists');
    expect(err.current).toEqual({ key: k('a', 'x'), value: '{"v":1}', createRevision: r1, modRevision: r1 });
    expect(await s.currentRevision()).toBe(r2);
    const got = await s.get(k('a', 'x'));
    expect(got).toEqual({ kv: { key: k('a', 'x'), value: '{"v":1}', createRevision: r1, modRevision: r1 }, revision: r2 });
  });

  it('update is compare-and-swap on the mod revision', async () => {
    const r1 = await s.create(k('a', 'x'), 'v1');
    const r2 = await s.update(k('a', 'x'), 'v2', r1);
    expect(r2).toBe(r1 + 1);
    const conflict = await expectCode(s.update(k('a', 'x'), 'v3', r1), 'Conflict');
    expect(conflict.current?.modRevision).toBe(r2);
    expect(conflict.current?.value).toBe('v2');
    await expectCode(s.update(k('a', 'missing'), 'v', 1), 'NotFound');
    const { kv } = await s.get(k('a', 'x'));
    expect(kv).toEqual({ key: k('a', 'x'), value: 'v2', createRevision: r1, modRevision: r2 });
  });

  it('delete returns the delete revision and the last value; CAS and NotFound', async () => {
    const r1 = await s.create(k('a', 'x'), 'v1');
    await expectCode(s.delete(k('a', 'x'), r1 + 100), 'Conflict');
    const d = await s.delete(k('a', 'x'), r1);
    expect(d).toEqual({ revision: r1 + 1, prev: { key: k('a', 'x'), value: 'v1', createRevision: r1, modRevision: r1 } });
    expect((await s.get(k('a', 'x'))).kv).toBeUndefined();
    await expectCode(s.delete(k('a', 'x')), 'NotFound');
    await expectCode(s.update(k('a', 'x'), 'v', d.revision), 'NotFound');
    // Re-create starts a new incarnation.
    const r3 = await s.create(k('a', 'x'), 'v3');
    expect((await s.get(k('a', 'x'))).kv).toEqual({ key: k('a', 'x'), value: 'v3', createRevision: r3, modRevision: r3 });
    // Unconditional delete.
    expect((await s.delete(k('a', 'x'))).prev.value).toBe('v3');
  });

  it('rejects invalid input with Invalid', async () => {
    const cases: [string, () => Promise<unknown>][] = [
      ['relative key', () => s.create('core/x', 'v')],
      ['key ending in /', () => s.create('/core/x/', 'v')],
      ['non-string value', () => s.create('/core/x', 42 as unknown as string)],
      ['zero expected revision', () => s.update('/core/x', 'v', 0)],
      ['negative revision', () => s.get('/core/x', { revision: -1 })],
      ['empty prefix', () => s.list('')],
      ['fractional fromRevision', () => s.watch(P, 1.5, () => undefined)],
    ];
    for (const [name, fn] of cases) {
      await expect(fn(), name).rejects.toMatchObject({ code: 'Invalid' });
    }
  });

  it("refuses a write over etcd's default --max-request-bytes (1.5 MiB) with TooLarge and writes nothing", async () => {
    const max = 1.5 * 1024 * 1024;
    // etcd counts its whole request (the key in its compare and its put, framing): a margin of 1 KiB below
    const cases: { name: string; value: string; tooLarge: boolean }[] = [
      { name: 'ASCII, 1 KiB under the bound', value: 'a'.repeat(max - 1024), tooLarge: false },
      { name: 'ASCII, one byte over', value: 'a'.repeat(max + 1), tooLarge: true },
      { name: 'two-byte UTF-8, under the bound in bytes', value: 'é'.repeat(max / 2 - 512), tooLarge: false },
      { name: 'two-byte UTF-8, under it in characters but over it in bytes', value: 'é'.repeat(max / 2 + 1), tooLarge: true },
    ];
    for (const [i, c] of cases.entries()) {
      const key = k('big', `x${i}`);
      const before = await s.currentRevision();
      if (c.tooLarge) {
        const e = await expectCode(s.create(key, c.value), 'TooLarge');
        expect(e.message, c.name).toBe('etcdserver: request is too large');
        expect((await s.get(key)).kv, c.name).toBeUndefined();
        // an update over the bound leaves the stored value as it was
        const rev = await s.create(key, 'small');
        await expectCode(s.update(key, c.value, rev), 'TooLarge');
        expect((await s.get(key)).kv?.value, c.name).toBe('small');
        expect(await s.currentRevision(), `${c.name}: only the small create took a revision`).toBe(before + 1);
      } else {
        const rev = await s.create(key, c.value);
        expect((await s.get(key)).kv?.value === c.value, c.name).toBe(true);
        expect(await s.update(key, c.value, rev), c.name).toBe(rev + 1);
      }
    }
  });

  it('get at a past revision sees the value as of then', async () => {
    const key = k('a', 'x');
    const r1 = await s.create(key, 'v1');
    const r2 = await s.update(key, 'v2', r1);
    const other = await s.create(k('a', 'y'), 'other');
    const r3 = (await s.delete(key, r2)).revision;
    const r4 = await s.create(key, 'v4');
    const table: [number, string | undefined][] = [
      [r1, 'v1'],
      [r2, 'v2'],
      [other, 'v2'],
      [r3, undefined],
      [r4, 'v4'],
    ];
    for (const [rev, want] of table) {
      const got = await s.get(key, { revision: rev });
      expect(got.revision, `at ${rev}`).toBe(rev);
      expect(got.kv?.value, `at ${rev}`).toBe(want);
    }
    expect((await s.get(key, { revision: r2 })).kv?.modRevision).toBe(r2);
    const future = await expectCode(s.get(key, { revision: r4 + 1 }), 'FutureRevision');
    expect(future.revision).toBe(r4);
    await expectCode(s.list(P, { revision: r4 + 5 }), 'FutureRevision');
  });

  it('compaction: reads below the point fail with Compacted, at or above it still work', async () => {
    const key = k('a', 'x');
    let rev = await s.create(key, 'v0');
    for (let i = 1; i <= 9; i++) rev = await s.update(key, `v${i}`, rev);
    const gone = await s.create(k('a', 'gone'), 'g');
    await s.delete(k('a', 'gone'), gone);
    const keep = await s.create(k('a', 'keep'), 'k'); // base + 13
    expect(keep).toBe(base + 13);
    await s.compact(base + 8);
    expect(await s.compactedRevision()).toBe(base + 8);
    const err = await expectCode(s.get(key, { revision: base + 7 }), 'Compacted');
    expect(err.compactedRevision).toBe(base + 8);
    await expectCode(s.list(P, { revision: base + 7 }), 'Compacted');
    expect((await s.get(key, { revision: base + 8 })).kv?.value).toBe('v7');
    expect((await s.get(key, { revision: base + 10 })).kv?.value).toBe('v9');
    expect((await s.get(k('a', 'keep'))).kv?.modRevision).toBe(keep);
    await s.compact(base + 12); // the delete of 'gone' is at base + 12
    expect((await s.get(k('a', 'gone'), { revision: base + 12 })).kv).toBeUndefined();
    expect((await s.list(P, { revision: base + 12 })).items.map((i) => i.key)).toEqual([key]);
    expect((await s.list(P)).items.map((i) => i.key)).toEqual([k('a', 'keep'), key]);
    await expectCode(s.compact(base + 12), 'Compacted');
    await expectCode(s.compact(base + 100), 'FutureRevision');
  });

  it('lists in byte-wise key order', async () => {
    const names = ['b', 'a', 'a-b', 'a.b', 'a0', 'A', 'z', '~', '\u00e9', '\uff01', '\u{1f600}', 'a/b'];
    for (const n of names) await s.create(k('ns', n), n);
    const want = names.map((n) => k('ns', n)).sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    const got = (await s.list(P)).items.map((i) => i.key);
    expect(got).toEqual(want);
  });

  it('paging continues over one snapshot while writes happen', async () => {
    for (let i = 0; i < 25; i++) await s.create(k(`ns${i % 3}`, `obj-${String(i).padStart(2, '0')}`), `v${i}`);
    const full = await s.list(P);
    expect(full.items).toHaveLength(25);
    expect(full.more).toBe(false);
    expect(full.remaining).toBe(0);

    const pages: KeyValue[][] = [];
    const p1 = await s.list(P, { limit: 10 });
    pages.push(p1.items);
    expect([p1.more, p1.remaining]).toEqual([true, 15]);
    // Concurrent writes between pages: updates, deletes and creates all over the range.
    const writes: Promise<unknown>[] = [];
    for (const item of full.items.slice(0, 25).filter((_, i) => i % 2 === 0)) writes.push(s.update(item.key, 'changed', item.modRevision));
    for (const item of full.items.filter((_, i) => i % 2 === 1).slice(0, 5)) writes.push(s.delete(item.key));
    writes.push(s.create(k('ns0', 'aaa-new'), 'new'), s.create(k('ns2', 'zzz-new'), 'new'));
    let cont = keyAfter(p1.items[p1.items.length - 1].key);
    for (;;) {
      const page = await s.list(P, { limit: 10, revision: p1.revision, startKey: cont });
      expect(page.revision).toBe(p1.revision);
      pages.push(page.items);
      if (!page.more) {
        expect(page.remaining).toBe(0);
        break;
      }
      expect(page.remaining).toBe(25 - pages.flat().length);
      cont = keyAfter(page.items[page.items.length - 1].key);
    }
    await Promise.all(writes);
    expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
    expect(pages.flat()).toEqual(full.items);
    // The latest state differs.
    const now = await s.list(P);
    expect(now.revision).toBeGreaterThan(p1.revision);
    expect(now.items).toHaveLength(25 - 5 + 2);
  });

  it('keeps prefixes apart (a/ vs ab/) in list and watch', async () => {
    const w = await collect(s, `${P}a/`, base);
    await s.create(k('a', 'x'), '1');
    await s.create(k('ab', 'y'), '2');
    await s.create(k('a', 'z'), '3');
    await s.create('/core/configmapsx/a/x', '4');
    expect((await s.list(`${P}a/`)).items.map((i) => i.key)).toEqual([k('a', 'x'), k('a', 'z')]);
    expect((await s.list(`${P}ab/`)).items.map((i) => i.key)).toEqual([k('ab', 'y')]);
    expect((await s.list(P)).items).toHaveLength(3);
    expect((await s.list(P, { startKey: k('a', 'y') })).items.map((i) => i.key)).toEqual([k('a', 'z'), k('ab', 'y')]);
    expect((await s.list(P, { startKey: '/core/configmapsz' })).items).toEqual([]);
    await barrier(s, w, `${P}a/`);
    expect(w.events.map((e) => e.key)).toEqual([k('a', 'x'), k('a', 'z')]);
    w.handle?.cancel();
  });

  it('watch events carry type, values and revisions', async () => {
    const start = await s.currentRevision();
    const w = await collect(s, P, start);
    const key = k('a', 'x');
    const r1 = await s.create(key, 'v1');
    const r2 = await s.update(key, 'v2', r1);
    const d = await s.delete(key, r2);
    const r4 = await s.create(key, 'v4');
    const evs = await w.waitFor(4);
    expect(evs).toEqual([
      { type: 'put', key, value: 'v1', prevValue: undefined, modRevision: r1, createRevision: r1, prevModRevision: 0, isCreate: true },
      { type: 'put', key, value: 'v2', prevValue: 'v1', modRevision: r2, createRevision: r1, prevModRevision: r1, isCreate: false },
      { type: 'delete', key, value: undefined, prevValue: 'v2', modRevision: d.revision, createRevision: r1, prevModRevision: r2, isCreate: false },
      { type: 'put', key, value: 'v4', prevValue: undefined, modRevision: r4, createRevision: r4, prevModRevision: 0, isCreate: true },
    ]);
    // The same history replayed from the log is identical.
    const replay = await collect(s, P, start);
    expect(await replay.waitFor(4)).toEqual(evs);
    w.handle?.cancel();
    replay.handle?.cancel();
  });

  it('watch from a revision: no gap, no repeat, across a reconnect while writes continue', async () => {
    const keys = Array.from({ length: 10 }, (_, i) => k(`ns${i % 2}`, `o${i}`));
    const revs = new Map<string, number>();
    for (const key of keys) revs.set(key, await s.create(key, '0'));
    const from = base + 3;
    // Writer: 200 more writes in the background, a few at a time.
    let stop = false;
    const writer = (async () => {
      for (let i = 1; i <= 200 && !stop; i++) {
        const key = keys[i % keys.length];
        if (i % 37 === 0) {
          await s.delete(key, revs.get(key));
          revs.set(key, await s.create(key, String(i)));
        } else {
          revs.set(key, await s.update(key, String(i), revs.get(key) as number));
        }
        if (i % 10 === 0) await new Promise((r) => setTimeout(r, 1));
      }
    })();
    const seen: number[] = [];
    const first = await collect(s, P, from);
    await first.waitFor(50);
    first.handle?.cancel();
    const firstEvents = first.events.slice();
    seen.push(...firstEvents.map((e) => e.modRevision));
    // Reconnect from the last revision received.
    const second = await collect(s, P, seen[seen.length - 1]);
    await writer;
    stop = true;
    const end = await s.currentRevision();
    await second.waitFor(end - seen[seen.length - 1]);
    seen.push(...second.events.map((e) => e.modRevision));
    const want = Array.from({ length: end - from }, (_, i) => from + 1 + i);
    expect(seen).toEqual(want);
    second.handle?.cancel();
  });

  it('a watch from a revision ahead of the store starts when the store gets there', async () => {
    await s.create(k('a', 'x'), '1');
    const w = await collect(s, P, base + 3);
    for (let i = 0; i < 4; i++) await s.create(k('a', `y${i}`), String(i));
    await barrier(s, w, P);
    expect(w.events.map((e) => e.modRevision)).toEqual([base + 4, base + 5]);
    w.handle?.cancel();
  });

  it('watch after compaction fails with Compacted; from the compaction point it works', async () => {
    let rev = await s.create(k('a', 'x'), '0');
    for (let i = 0; i < 9; i++) rev = await s.update(k('a', 'x'), String(i), rev);
    await s.compact(base + 6);
    const err = await expectCode(s.watch(P, base + 5, () => undefined), 'Compacted');
    expect(err.compactedRevision).toBe(base + 6);
    expect(err.message).toContain(`too old resource version: ${base + 5} (${base + 6})`);
    const w = await collect(s, P, base + 6);
    const evs = await w.waitFor(4);
    expect(evs.map((e) => e.modRevision)).toEqual([base + 7, base + 8, base + 9, base + 10]);
    expect(evs[0].prevValue).toBe('4'); // prevValue survives compaction of the older row
    w.handle?.cancel();
  });

  it('fans out to 1,000 watchers on one prefix', async () => {
    const n = 1000;
    const counts = new Array<number>(n).fill(0);
    const lastRev = new Array<number>(n).fill(0);
    const handles = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        s.watch(P, base, (ev) => {
          if (ev.modRevision <= lastRev[i]) throw new Error('out of order');
          lastRev[i] = ev.modRevision;
          counts[i]++;
        }),
      ),
    );
    await settle();
    expect(s.stats().watchers).toBe(n);
    const writes: Promise<number>[] = [];
    for (let i = 0; i < 100; i++) writes.push(s.create(k('fan', `o${i}`), 'x'));
    await Promise.all(writes);
    await settle();
    await until(() => counts.every((c) => c === 100), 'every watcher to see 100 events');
    expect(counts.every((c) => c === 100)).toBe(true);
    for (const h of handles) h.cancel();
    expect(s.stats().watchers).toBe(0);
  });

  it('cancel stops delivery; close ends watches with Closed and rejects operations', async () => {
    const a = await collect(s, P, base);
    const b = await collect(s, P, base);
    await s.create(k('a', 'x'), '1');
    await a.waitFor(1);
    await b.waitFor(1);
    a.handle?.cancel();
    a.handle?.cancel();
    await s.create(k('a', 'y'), '2');
    await b.waitFor(2);
    expect(a.events).toHaveLength(1);
    await s.close();
    expect(b.error?.code).toBe('Closed');
    await expectCode(s.get(k('a', 'x')), 'Closed');
    await expectCode(s.create(k('a', 'z'), '3'), 'Closed');
    await s.close(); // idempotent
  });

  it('a listener that writes does not reorder events for other watchers', async () => {
    const order: number[] = [];
    const h1 = await s.watch(P, base, (ev) => {
      if (ev.key === k('a', 'trigger')) void s.create(k('a', 'echo'), 'e');
    });
    const w2 = await collect(s, P, base);
    await settle();
    await s.create(k('a', 'trigger'), 't');
    await s.create(k('a', 'other'), 'o');
    await w2.waitFor(3);
    order.push(...w2.events.map((e) => e.modRevision));
    expect(order).toEqual([...order].sort((x, y) => x - y));
    h1.cancel();
    w2.handle?.cancel();
  });
});
