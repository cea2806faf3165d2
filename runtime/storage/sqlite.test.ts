// What only the sqlite backend has: persistence, group commit, the ring/log split, crash safety.

import { spawn } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { AutoCompactor } from './compactor.ts';
import { isStorageError } from './interface.ts';
import { MemoryStorage } from './memory.ts';
import { openStorage } from './index.ts';
import type { SqliteStorage } from './sqlite.ts';
import { collect, openSqlite, tempDir } from './test-support.ts';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '..', '..');
const dirs: string[] = [];
const open: SqliteStorage[] = [];

function fresh(extra: Parameters<typeof openSqlite>[1] = {}): { dir: string; store: SqliteStorage } {
  const dir = tempDir('sqlite');
  dirs.push(dir);
  const store = openSqlite(dir, extra);
  open.push(store);
  return { dir, store };
}

function reopen(dir: string, extra: Parameters<typeof openSqlite>[1] = {}): SqliteStorage {
  const store = openSqlite(dir, extra);
  open.push(store);
  return store;
}

afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('sqlite storage', () => {
  it('reopening the directory keeps data, revision and compaction point', async () => {
    const { dir, store } = fresh();
    const a = await store.create('/core/configmaps/ns/a', 'A');
    await store.update('/core/configmaps/ns/a', 'A2', a);
    const b = await store.create('/core/configmaps/ns/b', 'B');
    await store.compact(b);
    const d = await store.delete('/core/configmaps/ns/b', b); // last write is a delete
    await store.close();

    const again = reopen(dir);
    expect(await again.currentRevision()).toBe(d.revision);
    expect(await again.compactedRevision()).toBe(b);
    expect((await again.get('/core/configmaps/ns/a')).kv).toEqual({ key: '/core/configmaps/ns/a', value: 'A2', createRevision: a, modRevision: a + 1 });
    expect((await again.get('/core/configmaps/ns/b')).kv).toBeUndefined();
    expect((await again.get('/core/configmaps/ns/b', { revision: b })).kv?.value).toBe('B');
    expect(await again.create('/core/configmaps/ns/c', 'C')).toBe(d.revision + 1);
    // History written before the reopen replays from the log.
    const w = await collect(again, '/core/configmaps/', b);
    const evs = await w.waitFor(2);
    expect(evs.map((e) => [e.type, e.modRevision])).toEqual([
      ['delete', d.revision],
      ['put', d.revision + 1],
    ]);
    // Compacting the delete away still leaves the revision intact after another reopen.
    await again.compact(d.revision + 1);
    await again.close();
    const third = reopen(dir);
    expect(await third.currentRevision()).toBe(d.revision + 1);
    expect(third.rowCount()).toBe(2); // a and c
  });

  it('maxRequestBytes bounds the key and value of a write (0: no bound), in the same batch as writes it takes', async () => {
    const key = '/core/configmaps/ns/x'; // 21 bytes
    const cases: { maxRequestBytes: number; value: string; refused: boolean }[] = [
      { maxRequestBytes: 100, value: 'a'.repeat(79), refused: false },
      { maxRequestBytes: 100, value: 'a'.repeat(80), refused: true },
      { maxRequestBytes: 100, value: 'ü'.repeat(40), refused: true }, // 40 characters, 80 bytes
      { maxRequestBytes: 0, value: 'a'.repeat(2 * 1024 * 1024), refused: false },
    ];
    for (const c of cases) {
      const { store } = fresh({ maxRequestBytes: c.maxRequestBytes });
      const [small, big] = await Promise.allSettled([store.create('/core/configmaps/ns/small', 'v'), store.create(key, c.value)]);
      expect(small.status).toBe('fulfilled');
      if (c.refused) expect(big).toMatchObject({ status: 'rejected', reason: { code: 'TooLarge', message: 'etcdserver: request is too large' } });
      else expect(big.status).toBe('fulfilled');
      expect(await store.currentRevision()).toBe(c.refused ? 1 : 2);
    }
  });

  it('refuses a second open of the same directory while the first is open', async () => {
    const { dir, store } = fresh();
    await store.create('/core/x/y', '1');
    expect(() => reopen(dir)).toThrow(/in use|locked|busy/i);
  });

  it('checkpoints run on the worker thread: the database file grows while the WAL stays below the writer\'s own threshold', async () => {
    const { store } = fresh({ autoCompaction: false });
    const dbSize = (): number => statSync(store.path).size;
    const before = dbSize();
    // 2,500 small writes: past the checkpointer's 2,000, far below the writer's 10,000-page backstop.
    for (let i = 0; i < 2500; i += 250) {
      await Promise.all(Array.from({ length: 250 }, (_, j) => store.create(`/core/configmaps/ns/k${i + j}`, `{"i":${i + j}}`)));
    }
    // only a checkpoint writes the database file in WAL mode
    const deadline = Date.now() + 10_000;
    while (dbSize() <= before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(dbSize()).toBeGreaterThan(before);
  });

  it('group commit: 200 concurrent creates share a few transactions', async () => {
    const { store } = fresh();
    const revs = await Promise.all(Array.from({ length: 200 }, (_, i) => store.create(`/core/configmaps/ns/o${i}`, `{"i":${i}}`)));
    expect(new Set(revs).size).toBe(200);
    expect([...revs].sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    const st = store.stats();
    expect(st.writes).toBe(200);
    expect(st.commits).toBeLessThanOrEqual(5);
    // Sequential writes each get their own transaction (and their own fsync).
    for (let i = 0; i < 5; i++) await store.create(`/core/configmaps/seq/o${i}`, 'x');
    expect(store.stats().commits).toBe(st.commits + 5);
  });

  it('writes in one batch see each other: conflicts are decided in arrival order', async () => {
    const { store } = fresh();
    const r = await store.create('/core/c/ns/x', 'v0');
    const results = await Promise.allSettled([
      store.create('/core/c/ns/dup', 'first'),
      store.create('/core/c/ns/dup', 'second'),
      store.update('/core/c/ns/x', 'v1', r),
      store.update('/core/c/ns/x', 'v1-lost', r),
      store.delete('/core/c/ns/x'),
      store.update('/core/c/ns/x', 'after-delete', r),
    ]);
    expect(results.map((x) => (x.status === 'fulfilled' ? 'ok' : isStorageError(x.reason) ? x.reason.code : 'other'))).toEqual([
      'ok',
      'KeyExists',
      'ok',
      'Conflict',
      'ok',
      'NotFound',
    ]);
    expect(store.stats().commits).toBe(2);
    expect(await store.currentRevision()).toBe(r + 3); // failed writes consume no revision
    expect((await store.get('/core/c/ns/dup')).kv?.value).toBe('first');
  });

  it('replays from the ring when it reaches back far enough, from the log otherwise', async () => {
    const { store } = fresh({ ringCapacity: 16 });
    for (let i = 0; i < 100; i++) await store.create(`/core/configmaps/ns${i % 2}/o${i}`, String(i));
    const old = await collect(store, '/core/configmaps/ns1/', 0);
    await old.waitFor(50);
    expect(old.events.map((e) => e.modRevision)).toEqual(Array.from({ length: 50 }, (_, i) => 2 * (i + 1)));
    const afterOld = store.stats();
    expect(afterOld.replayFromLog).toBeGreaterThan(0);
    const recent = await collect(store, '/core/configmaps/', 90);
    await recent.waitFor(10);
    const afterRecent = store.stats();
    expect(afterRecent.replayFromLog).toBe(afterOld.replayFromLog);
    expect(afterRecent.replayFromRing).toBeGreaterThanOrEqual(10);
    old.handle?.cancel();
    recent.handle?.cancel();
  });

  it('1,000 watchers catching up from the same recent revision read the ring, not SQLite', async () => {
    const { store } = fresh();
    for (let i = 0; i < 50; i++) await store.create(`/core/configmaps/ns/o${i}`, String(i));
    const ws = await Promise.all(Array.from({ length: 1000 }, () => collect(store, '/core/configmaps/', 10)));
    for (const w of ws) await w.waitFor(40);
    const st = store.stats();
    expect(st.replayFromLog).toBe(0);
    expect(st.replayFromRing).toBe(40 * 1000);
    for (const w of ws) w.handle?.cancel();
  });

  it('a watcher still catching up when compaction passes it ends with Compacted', async () => {
    const { store } = fresh({ ringCapacity: 16 });
    await Promise.all(Array.from({ length: 5000 }, (_, i) => store.create(`/core/c/ns/o${i}`, 'x')));
    const w = await collect(store, '/core/c/', 0);
    await new Promise((r) => setImmediate(r)); // the first catch-up step (2,000 events) runs
    expect(w.events.length).toBe(2000);
    await store.compact(4000);
    for (let i = 0; i < 20 && !w.error; i++) await new Promise((r) => setImmediate(r));
    expect(w.error?.code).toBe('Compacted');
    expect(w.error?.compactedRevision).toBe(4000);
    expect(w.events.length).toBe(2000);
    expect(store.stats().watchers).toBe(0);
  });

  it('compaction removes superseded rows and tombstones, keeps the latest row of each key', async () => {
    const { store } = fresh({ compactionChunk: 7 });
    let rev = await store.create('/core/c/ns/hot', '0');
    for (let i = 1; i <= 40; i++) rev = await store.update('/core/c/ns/hot', String(i), rev);
    const t = await store.create('/core/c/ns/temp', 't');
    await store.delete('/core/c/ns/temp', t);
    const cold = await store.create('/core/c/ns/cold', 'c');
    expect(store.rowCount()).toBe(44);
    await store.compact(cold);
    expect(store.rowCount()).toBe(2);
    expect((await store.list('/core/c/')).items.map((i) => [i.key, i.value])).toEqual([
      ['/core/c/ns/cold', 'c'],
      ['/core/c/ns/hot', '40'],
    ]);
    const next = await store.update('/core/c/ns/hot', '41', rev);
    await store.compact(next);
    expect(store.rowCount()).toBe(2);
    expect((await store.get('/core/c/ns/hot')).kv?.value).toBe('41');
  });

  it('a compaction cut short by close resumes at the next open', async () => {
    const { dir, store } = fresh({ compactionChunk: 1 });
    let rev = await store.create('/core/c/ns/hot', '0');
    for (let i = 1; i <= 50; i++) rev = await store.update('/core/c/ns/hot', String(i), rev);
    const pending = store.compact(rev);
    await new Promise((r) => setImmediate(r));
    await store.close();
    await pending;
    const again = reopen(dir, { compactionChunk: 1 });
    expect(await again.compactedRevision()).toBe(rev);
    expect(again.rowCount()).toBeGreaterThan(1); // not finished before the close
    await again.settled();
    expect(again.rowCount()).toBe(1);
    expect((await again.get('/core/c/ns/hot')).kv?.value).toBe('50');
  });

  it('auto-compaction keeps the last N revisions or T seconds', async () => {
    const { store } = fresh({ autoCompaction: { keepRevisions: 10, intervalSeconds: 3600 } });
    for (let i = 0; i < 30; i++) await store.create(`/core/c/ns/o${i}`, 'x');
    await store.autoCompactor()?.tick();
    expect(await store.compactedRevision()).toBe(20);

    // Time-based: revisions written more than keepSeconds ago are compacted.
    const mem = new MemoryStorage({ autoCompaction: false });
    const t0 = 1_000_000;
    const view = { rev: 0, compacted: 0 };
    const clock = new AutoCompactor(
      {
        currentRevisionSync: () => view.rev,
        compactedRevisionSync: () => view.compacted,
        compact: async (r) => {
          await mem.compact(r);
          view.compacted = r;
        },
      },
      { keepSeconds: 300 },
      t0,
    );
    clock.stop();
    for (let i = 0; i < 5; i++) await mem.create(`/core/c/ns/m${i}`, 'x');
    view.rev = 5;
    await clock.tick(t0 + 100_000); // sample (t0+100s, 5)
    expect(view.compacted).toBe(0);
    for (let i = 5; i < 9; i++) await mem.create(`/core/c/ns/m${i}`, 'x');
    view.rev = 9;
    await clock.tick(t0 + 401_000); // cutoff t0+101s: the newest sample at or before it says 5
    expect(view.compacted).toBe(5);
    expect(await mem.compactedRevision()).toBe(5);
    await mem.close();
  });

  it('openStorage picks the backend', async () => {
    const dir = tempDir('open');
    dirs.push(dir);
    const a = openStorage({ kind: 'sqlite', dataDir: dir, autoCompaction: false });
    const b = openStorage({ kind: 'memory', autoCompaction: false });
    expect([a.kind, b.kind]).toEqual(['sqlite', 'memory']);
    await a.close();
    await b.close();
    expect(() => openStorage({ kind: 'sqlite' })).toThrow(/dataDir/);
  });

  it('every acknowledged write survives kill -9 of the writer', { timeout: 30_000 }, async () => {
    const dir = tempDir('crash');
    dirs.push(dir);
    const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'crash-writer.fixture.ts'), dir, '8'], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<NodeJS.Signals | null>((res) => child.on('exit', (_code, signal) => res(signal)));
    await new Promise<void>((res, rej) => {
      const deadline = setTimeout(() => rej(new Error(`writer too slow; stderr: ${err}`)), 20_000);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        // Kill after a thousand acknowledged writes, in the middle of the stream.
        if ((out.match(/\n/g)?.length ?? 0) > 1000) {
          clearTimeout(deadline);
          child.kill('SIGKILL');
          res();
        }
      });
      child.on('exit', () => {
        clearTimeout(deadline);
        res();
      });
    });
    expect(await exited).toBe('SIGKILL');
    // Only complete lines are acknowledgements.
    const lines = out.slice(0, out.lastIndexOf('\n')).split('\n').filter((l) => l !== 'ready');
    const acked = lines.map((l) => {
      const [rev, key] = l.split(' ');
      return { rev: Number(rev), key };
    });
    expect(acked.length).toBeGreaterThanOrEqual(1000);

    const store = reopen(dir);
    const current = await store.currentRevision();
    expect(current).toBeGreaterThanOrEqual(Math.max(...acked.map((a) => a.rev)));
    for (const a of acked) {
      const { kv } = await store.get(a.key);
      expect(kv?.modRevision, a.key).toBe(a.rev);
    }
    // The log is contiguous: every revision up to the current one is there.
    const all = await store.list('/core/configmaps/crash/');
    expect(all.items).toHaveLength(current);
    // And the store goes on from there.
    expect(await store.create('/core/configmaps/crash/after', 'x')).toBe(current + 1);
  });
});
