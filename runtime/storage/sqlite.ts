// SQLite backend: better-sqlite3 in WAL mode, a log-structured table in the manner of kine.
//
// Table `kv` holds one row per revision (id = revision): the key, whether the write created or deleted
// it, the key's create revision, the previous revision of the key, the new value and the old value
// (so a watch replayed from the log still carries prevValue after the older row is compacted away).
// The state of a key at revision R is its row with the greatest id <= R; a range at R is the greatest
// row per key in the name range, minus deleted ones. Index (name, id, deleted) answers both, and counts
// live keys without touching the table.
//
// Durability: with FULL (the default) a write is acknowledged only once its transaction is on disk;
// the fsync runs off the event loop (wal-sync.ts), so requests are served while the disk flushes.
// Group commit: writes are queued and flushed on setImmediate; everything that arrived meanwhile goes
// into one transaction and one fsync. A write's promise settles, and its watch events are published,
// only after its transaction committed and, with FULL, reached the disk. Revisions are assigned by
// this process (an exclusive lock on `<db>.lock` keeps every other process out). Checkpoints, which copy
// the WAL into the database file, run on a worker thread (wal-checkpointer.ts).

import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as yieldTick } from 'node:timers/promises';
import { AutoCompactor, DEFAULT_AUTO_COMPACTION, type AutoCompactionOptions } from './compactor.ts';
import {
  StorageError,
  compareKeys,
  prefixEnd,
  validateKey,
  validatePrefix,
  validateRevision,
  validateValue,
  type DeleteResult,
  type GetOptions,
  type GetResult,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Revision,
  type Storage,
  type StorageStats,
  type WatchErrorListener,
  type WatchEvent,
  type WatchHandle,
  type WatchListener,
} from './interface.ts';
import { SortedKeyIndex } from './key-index.ts';
import { LatestRowCache, type LatestRow } from './latest-row-cache.ts';
import { checkRequestSize, DEFAULT_MAX_REQUEST_BYTES } from './request-size.ts';
import { WalCheckpointer } from './wal-checkpointer.ts';
import { WalSync } from './wal-sync.ts';
import { WatchHub, type EventLogPage } from './watch-hub.ts';

export interface SqliteStorageOptions {
  readonly dataDir: string;
  /** Default `clusterspec.db`. */
  readonly fileName?: string;
  /** Default FULL (an acknowledged write survives power loss). NORMAL survives a process crash only. */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /** false disables it; default keeps 5 minutes of history. */
  readonly autoCompaction?: AutoCompactionOptions | false;
  /** Recent events kept in memory for watch replay (default 8192). */
  readonly ringCapacity?: number;
  /** Most writes per transaction (default 2000). */
  readonly maxBatch?: number;
  /** Revisions deleted per compaction step (default 10000); the event loop runs between steps. */
  readonly compactionChunk?: number;
  /** Keys whose latest row is kept in memory for reads at the latest revision (default 10000; 0 disables). */
  readonly latestCacheSize?: number;
  /** The largest key plus value a write takes, as etcd's --max-request-bytes (default 1.5 MiB; 0: no bound). */
  readonly maxRequestBytes?: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS kv (
  id              INTEGER PRIMARY KEY,
  name            TEXT    NOT NULL,
  created         INTEGER NOT NULL,
  deleted         INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision   INTEGER NOT NULL,
  value           TEXT,
  old_value       TEXT
);
CREATE INDEX IF NOT EXISTS kv_name_id_deleted ON kv (name, id, deleted);
CREATE TABLE IF NOT EXISTS meta (
  key   TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
`;

interface KvRow {
  id: number;
  name: string;
  create_revision: number;
  value: string;
}

interface LogRow {
  id: number;
  name: string;
  created: number;
  deleted: number;
  create_revision: number;
  prev_revision: number;
  value: string | null;
  old_value: string | null;
}

type WriteOp =
  | { readonly op: 'create'; readonly key: string; readonly value: string }
  | { readonly op: 'update'; readonly key: string; readonly value: string; readonly expected: Revision }
  | { readonly op: 'delete'; readonly key: string; readonly expected: Revision | undefined };

interface Pending {
  readonly write: WriteOp;
  readonly resolve: (r: DeleteResult) => void;
  readonly reject: (e: unknown) => void;
}

type Outcome = { readonly ok: true; readonly result: DeleteResult } | { readonly ok: false; readonly error: StorageError };

export class SqliteStorage implements Storage {
  readonly kind = 'sqlite';
  readonly path: string;
  private readonly db: Database.Database;
  private rev: Revision;
  private compacted: Revision;
  private compactDone: Revision;
  private readonly hub: WatchHub;
  private readonly compactor: AutoCompactor | undefined;
  private readonly maxBatch: number;
  private readonly chunk: number;
  /** etcd's bound on one write (request-size.ts); 0: none. */
  readonly maxRequestBytes: number;
  private queue: Pending[] = [];
  private flushScheduled = false;
  private closed = false;
  private compacting: Promise<void> = Promise.resolve();
  private commits = 0;
  private writes = 0;
  /** Live keys at the latest revision (built on first need, then kept current by commitBatch). */
  private live: SortedKeyIndex | undefined;
  /** FULL durability: flushes the WAL before acknowledging (undefined with NORMAL). */
  private readonly walSync: WalSync | undefined;
  /** Latest rows of recently used keys, updated after each commit. */
  private readonly latestRows: LatestRowCache;
  /** The exclusive lock of `<db>.lock`: one process writes a database. */
  private readonly lock: Database.Database;
  /** Copies committed WAL pages into the database file off the event loop. */
  private readonly checkpointer: WalCheckpointer;

  private readonly stmt: {
    latest: Database.Statement<[string], LatestRow>;
    insert: Database.Statement<[number, string, number, number, number, number, string | null, string | null]>;
    getAt: Database.Statement<[string, number], LatestRow>;
    page: Database.Statement<[string, string, number, number], KvRow>;
    count: Database.Statement<[string, string, number], { n: number }>;
    liveKeys: Database.Statement<[], { name: string }>;
    log: Database.Statement<[number, number, string, string, number], LogRow>;
    setMeta: Database.Statement<[string, number]>;
    deletePrev: Database.Statement<[number, number, number]>;
    deleteTombstones: Database.Statement<[number, number]>;
  };

  constructor(options: SqliteStorageOptions) {
    mkdirSync(options.dataDir, { recursive: true });
    this.path = join(options.dataDir, options.fileName ?? 'clusterspec.db');
    this.maxBatch = options.maxBatch ?? 2000;
    this.chunk = options.compactionChunk ?? 10000;
    this.maxRequestBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
    this.latestRows = new LatestRowCache(options.latestCacheSize ?? 10000);
    this.walSync =
      (options.synchronous ?? 'FULL') === 'FULL'
        ? new WalSync(`${this.path}-wal`, () => {
            if (this.flushScheduled) this.flush();
          })
        : undefined;
    this.lock = lockDatabase(this.path);
    let db: Database.Database;
    try {
      db = new Database(this.path, { timeout: 250 }); // wait briefly for a lock, never 5 s
    } catch (e) {
      this.lock.close();
      throw e;
    }
    try {
      db.pragma('journal_mode = WAL');
      // FULL durability comes from WalSync's fsync after each commit, off the event loop.
      db.pragma('synchronous = NORMAL');
      // 16 MiB of page cache (default 2 MiB). Not more: SQLite scans the whole page-cache hash at
      // the end of every write transaction (pcache1TruncateUnsafe), so a 64 MiB cache cost ~4 us per create.
      db.pragma('cache_size = -16384');
      // Checkpoints run on WalCheckpointer's thread; this connection checkpoints only when the WAL
      // reaches 10,000 pages (~40 MiB; default 1,000), a backstop for when that thread falls behind.
      db.pragma('wal_autocheckpoint = 10000');
      db.exec(SCHEMA);
    } catch (e) {
      db.close();
      this.lock.close();
      throw e;
    }
    this.db = db;
    const meta = (k: string): number => (db.prepare<[string], { value: number }>('SELECT value FROM meta WHERE key = ?').get(k)?.value ?? 0);
    const maxId = db.prepare<[], { m: number | null }>('SELECT MAX(id) AS m FROM kv').get()?.m ?? 0;
    this.compacted = meta('compact_rev');
    this.compactDone = meta('compact_done');
    // Compaction never removes rows above the compaction point, so the revision is the larger of the two.
    this.rev = Math.max(maxId, this.compacted);

    this.stmt = {
      latest: db.prepare('SELECT id, deleted, create_revision, value FROM kv WHERE name = ? ORDER BY id DESC LIMIT 1'),
      insert: db.prepare(
        'INSERT INTO kv (id, name, created, deleted, create_revision, prev_revision, value, old_value) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      getAt: db.prepare('SELECT id, deleted, create_revision, value FROM kv WHERE name = ? AND id <= ? ORDER BY id DESC LIMIT 1'),
      // Walks the (name, id) index in key order and stops at LIMIT: a page costs what it returns.
      page: db.prepare(
        `SELECT r.id, r.name, r.create_revision, r.value FROM kv r
          WHERE r.name >= ? AND r.name < ? AND r.deleted = 0
            AND r.id = (SELECT MAX(k.id) FROM kv k WHERE k.name = r.name AND k.id <= ?)
          ORDER BY r.name LIMIT ?`,
      ),
      // Index-only: with one max() aggregate, SQLite takes the bare column `deleted` from the max row.
      count: db.prepare(
        `SELECT COUNT(*) AS n FROM (SELECT MAX(id) AS mid, deleted FROM kv WHERE name >= ? AND name < ? AND id <= ? GROUP BY name)
          WHERE deleted = 0`,
      ),
      // Every live key at the latest revision, index-only, in key order (BINARY collation: byte-wise UTF-8).
      liveKeys: db.prepare(
        `SELECT name FROM (SELECT name, MAX(id) AS mid, deleted FROM kv GROUP BY name) WHERE deleted = 0 ORDER BY name`,
      ),
      log: db.prepare(
        `SELECT id, name, created, deleted, create_revision, prev_revision, value, old_value FROM kv
          WHERE id > ? AND id <= ? AND name >= ? AND name < ? ORDER BY id LIMIT ?`,
      ),
      setMeta: db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
      // Rows superseded by a row in (lo, hi]: every later row names its predecessor in prev_revision.
      deletePrev: db.prepare('DELETE FROM kv WHERE id IN (SELECT prev_revision FROM kv WHERE id > ? AND id <= ? AND prev_revision > 0) AND id <= ?'),
      deleteTombstones: db.prepare('DELETE FROM kv WHERE id > ? AND id <= ? AND deleted = 1'),
    };

    this.checkpointer = new WalCheckpointer(this.path);
    this.hub = new WatchHub({
      log: { readEvents: (p, after, upTo, limit) => this.readEvents(p, after, upTo, limit) },
      initialRevision: this.rev,
      compactedRevision: () => this.compacted,
      ringCapacity: options.ringCapacity ?? 8192,
    });
    // A clean-up cut short (close or crash) resumes now; an error here is retried by the next compaction.
    if (this.compactDone < this.compacted) this.compacting = this.cleanUp(this.compacted).catch(() => undefined);
    const ac = options.autoCompaction === undefined ? DEFAULT_AUTO_COMPACTION : options.autoCompaction;
    this.compactor =
      ac === false
        ? undefined
        : new AutoCompactor(
            { currentRevisionSync: () => this.rev, compactedRevisionSync: () => this.compacted, compact: (r) => this.compact(r) },
            ac,
          );
  }

  // ---- writes (group commit) ----------------------------------------------------------------

  create(key: string, value: string): Promise<Revision> {
    return this.enqueue(() => {
      validateKey(key);
      validateValue(value);
      checkRequestSize(key, value, this.maxRequestBytes);
      return { op: 'create', key, value };
    }).then((r) => r.revision);
  }

  update(key: string, value: string, expectedRevision: Revision): Promise<Revision> {
    return this.enqueue(() => {
      validateKey(key);
      validateValue(value);
      checkRequestSize(key, value, this.maxRequestBytes);
      validateRevision('expectedRevision', expectedRevision, false);
      return { op: 'update', key, value, expected: expectedRevision };
    }).then((r) => r.revision);
  }

  delete(key: string, expectedRevision?: Revision): Promise<DeleteResult> {
    return this.enqueue(() => {
      validateKey(key);
      if (expectedRevision !== undefined) validateRevision('expectedRevision', expectedRevision, false);
      return { op: 'delete', key, expected: expectedRevision };
    });
  }

  private enqueue(build: () => WriteOp): Promise<DeleteResult> {
    return new Promise<DeleteResult>((resolve, reject) => {
      if (this.closed) throw new StorageError('Closed', 'storage is closed');
      this.queue.push({ write: build(), resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // While the WAL is being flushed, the commit waits for the flush to end (WalSync's afterFlush).
        if (!this.walSync?.busy) setImmediate(() => this.flush());
      }
    });
  }

  /** Commit everything queued (in batches of maxBatch), one transaction per batch. */
  private flush(): void {
    this.flushScheduled = false;
    while (this.queue.length > 0 && this.db.open) {
      const batch = this.queue.length <= this.maxBatch ? this.queue : this.queue.slice(0, this.maxBatch);
      this.queue = this.queue.length <= this.maxBatch ? [] : this.queue.slice(this.maxBatch);
      this.commitBatch(batch);
    }
  }

  private commitBatch(batch: Pending[]): void {
    const outcomes: Outcome[] = [];
    const events: WatchEvent[] = [];
    // Rows written by this batch: later writes in it see them; the cache gets them once committed.
    const written = new Map<string, LatestRow>();
    let next = this.rev;
    const run = this.db.transaction(() => {
      for (const p of batch) {
        const r = this.apply(p.write, next + 1, written);
        if (r.ok) {
          next++;
          events.push(r.event);
          outcomes.push({ ok: true, result: { revision: next, prev: r.prev } });
        } else {
          outcomes.push(r);
        }
      }
    });
    try {
      run();
    } catch (e) {
      for (const p of batch) p.reject(e);
      return;
    }
    this.rev = next;
    for (const [key, row] of written) this.latestRows.set(key, row);
    const live = this.live;
    if (live) {
      for (let i = 0; i < batch.length; i++) {
        if (!outcomes[i].ok) continue;
        const w = batch[i].write;
        if (w.op === 'create') live.add(w.key);
        else if (w.op === 'delete') live.remove(w.key);
      }
    }
    if (events.length > 0) {
      this.commits++;
      this.writes += events.length;
      this.checkpointer.committed(events.length);
    }
    const acknowledge = (): void => {
      if (events.length > 0) this.hub.publish(events);
      for (let i = 0; i < batch.length; i++) {
        const o = outcomes[i];
        if (o.ok) batch[i].resolve(o.result);
        else batch[i].reject(o.error);
      }
    };
    // A batch that wrote nothing (every op failed its precondition) has nothing to flush.
    if (this.walSync === undefined || events.length === 0) return acknowledge();
    this.walSync.afterCommit(acknowledge, (e) => {
      const err = new StorageError('Invalid', `the write was committed but flushing it to disk failed: ${e.message}`);
      for (const p of batch) p.reject(err);
    });
  }

  /** Check and write one op at revision `rev` inside the open transaction. */
  private apply(
    w: WriteOp,
    rev: Revision,
    written: Map<string, LatestRow>,
  ): { ok: true; event: WatchEvent; prev: KeyValue } | { ok: false; error: StorageError } {
    const latest = written.get(w.key) ?? this.latestRow(w.key);
    const live = latest && latest.deleted === 0 ? latest : undefined;
    const liveKV = live ? rowKV(w.key, live) : undefined;
    if (w.op === 'create') {
      if (liveKV) {
        return { ok: false, error: new StorageError('KeyExists', `key ${w.key} already exists`, { key: w.key, revision: this.rev, current: liveKV }) };
      }
      this.stmt.insert.run(rev, w.key, 1, 0, rev, latest?.id ?? 0, w.value, null);
      written.set(w.key, { id: rev, deleted: 0, create_revision: rev, value: w.value });
      const event: WatchEvent = {
        type: 'put', key: w.key, value: w.value, prevValue: undefined,
        modRevision: rev, createRevision: rev, prevModRevision: 0, isCreate: true,
      };
      // `prev` is not meaningful for a create; the caller only reads the revision.
      return { ok: true, event, prev: { key: w.key, value: w.value, createRevision: rev, modRevision: rev } };
    }
    if (!liveKV || !live) {
      return { ok: false, error: new StorageError('NotFound', `key ${w.key} not found`, { key: w.key, revision: this.rev }) };
    }
    if (w.expected !== undefined && live.id !== w.expected) {
      return {
        ok: false,
        error: new StorageError('Conflict', `key ${w.key} has revision ${live.id}, not ${w.expected}`, { key: w.key, revision: this.rev, current: liveKV }),
      };
    }
    const isDelete = w.op === 'delete';
    const value = isDelete ? null : w.value;
    this.stmt.insert.run(rev, w.key, 0, isDelete ? 1 : 0, live.create_revision, live.id, value, liveKV.value);
    written.set(w.key, { id: rev, deleted: isDelete ? 1 : 0, create_revision: live.create_revision, value });
    const event: WatchEvent = {
      type: isDelete ? 'delete' : 'put', key: w.key, value: value ?? undefined, prevValue: liveKV.value,
      modRevision: rev, createRevision: live.create_revision, prevModRevision: live.id, isCreate: false,
    };
    return { ok: true, event, prev: liveKV };
  }

  // ---- reads --------------------------------------------------------------------------------

  // Written out rather than through read(): a closure per GET is a measurable cost under tsx.
  get(key: string, options: GetOptions = {}): Promise<GetResult> {
    try {
      if (this.closed) throw new StorageError('Closed', 'storage is closed');
      validateKey(key);
      const at = this.readRevision(options.revision);
      const row = at === this.rev ? this.latestRow(key) : this.stmt.getAt.get(key, at);
      return Promise.resolve({ kv: row && row.deleted === 0 ? rowKV(key, row) : undefined, revision: at });
    } catch (e) {
      return Promise.reject(e);
    }
  }

  list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    return this.read(() => {
      validatePrefix(prefix);
      const at = this.readRevision(options.revision);
      const limit = options.limit ?? 0;
      validateRevision('limit', limit);
      const end = prefixEnd(prefix) as string; // defined: a prefix starts with '/'
      const start = options.startKey !== undefined && compareKeys(options.startKey, prefix) > 0 ? options.startKey : prefix;
      if (compareKeys(start, end) >= 0) return { items: [], revision: at, more: false, remaining: 0 };
      const rows = this.stmt.page.all(start, end, at, limit === 0 ? -1 : limit + 1);
      let more = false;
      let remaining = 0;
      if (limit > 0 && rows.length > limit) {
        rows.length = limit;
        more = true;
        // At the latest revision the in-memory index counts the rest in O(log n); a past snapshot
        // counts in SQL (a scan of the rest of the range).
        const total = at === this.rev ? this.liveIndex().count(start, end) : (this.stmt.count.get(start, end, at)?.n ?? 0);
        remaining = total - limit;
      }
      const items = rows.map((r) => ({ key: r.name, value: r.value, createRevision: r.create_revision, modRevision: r.id }));
      return { items, revision: at, more, remaining };
    });
  }

  /**
   * The latest committed row of a key (a tombstone when deleted; undefined when never written or
   * compacted away), from the cache or the table. Outside a write, and inside one for keys the
   * batch has not written, the table holds committed rows only, so what is cached here is committed.
   */
  private latestRow(key: string): LatestRow | undefined {
    const cached = this.latestRows.get(key);
    if (cached !== undefined) return cached;
    const row = this.stmt.latest.get(key);
    if (row !== undefined) this.latestRows.set(key, row);
    return row;
  }

  /** The live-key index at this.rev, built from the table on first use. */
  private liveIndex(): SortedKeyIndex {
    if (!this.live) {
      const keys = this.stmt.liveKeys.all().map((r) => r.name);
      let sorted = true;
      for (let i = 1; i < keys.length && sorted; i++) sorted = compareKeys(keys[i - 1], keys[i]) < 0;
      if (!sorted) keys.sort(compareKeys);
      this.live = SortedKeyIndex.fromSorted(keys);
    }
    return this.live;
  }

  watch(prefix: string, fromRevision: Revision, onEvent: WatchListener, onError?: WatchErrorListener): Promise<WatchHandle> {
    return this.read(() => {
      validatePrefix(prefix);
      validateRevision('fromRevision', fromRevision);
      return this.hub.watch(prefix, fromRevision, onEvent, onError);
    });
  }

  private readEvents(prefix: string, after: Revision, upTo: Revision, limit: number): EventLogPage {
    if (!this.db.open) return { events: [], scannedThrough: upTo };
    const end = prefixEnd(prefix) as string;
    const rows = this.stmt.log.all(after, upTo, prefix, end, limit);
    const events = rows.map(logEvent);
    const scannedThrough = rows.length === limit && rows.length > 0 ? rows[rows.length - 1].id : upTo;
    return { events, scannedThrough };
  }

  // ---- compaction and state -----------------------------------------------------------------

  compact(revision: Revision): Promise<void> {
    return this.read(() => {
      validateRevision('revision', revision, false);
      if (revision > this.rev) throw new StorageError('FutureRevision', `revision ${revision} is ahead of ${this.rev}`, { revision: this.rev });
      if (revision <= this.compacted) {
        throw new StorageError('Compacted', `revision ${revision} is already compacted (${this.compacted})`, {
          revision: this.rev,
          compactedRevision: this.compacted,
        });
      }
      // From here on reads below `revision` fail; the rows go in bounded steps.
      this.stmt.setMeta.run('compact_rev', revision);
      this.compacted = revision;
      const done = this.compacting.catch(() => undefined).then(() => this.cleanUp(revision));
      this.compacting = done;
      return done;
    }).then((p) => p);
  }

  /** Delete rows superseded at or below `target`, and tombstones at or below it, chunk by chunk. */
  private async cleanUp(target: Revision): Promise<void> {
    let lo = this.compactDone;
    while (lo < target) {
      if (this.closed || !this.db.open) return; // progress is in meta.compact_done; the next open resumes
      const hi = Math.min(target, lo + this.chunk);
      const deleted = this.db.transaction(() => {
        const n = this.stmt.deletePrev.run(lo, hi, target).changes + this.stmt.deleteTombstones.run(lo, hi).changes;
        this.stmt.setMeta.run('compact_done', hi);
        return n;
      })();
      this.checkpointer.committed(deleted);
      this.compactDone = hi;
      lo = hi;
      if (lo < target) await yieldTick();
    }
  }

  currentRevision(): Promise<Revision> {
    return this.read(() => this.rev);
  }

  compactedRevision(): Promise<Revision> {
    return this.read(() => this.compacted);
  }

  stats(): StorageStats {
    return {
      commits: this.commits,
      writes: this.writes,
      replayFromRing: this.hub.replayFromRing,
      replayFromLog: this.hub.replayFromLog,
      watchers: this.hub.watcherCount,
    };
  }

  /** For tests: the automatic compactor, if enabled. */
  autoCompactor(): AutoCompactor | undefined {
    return this.compactor;
  }

  /** Rows in the log table (for tests and metrics: shows what compaction removed). */
  rowCount(): number {
    if (this.closed) throw new StorageError('Closed', 'storage is closed');
    return this.db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM kv').get()?.n ?? 0;
  }

  /** Wait for compaction clean-up in progress (for tests and close). */
  async settled(): Promise<void> {
    await this.compacting.catch(() => undefined);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.compactor?.stop();
    this.flush(); // queued writes were accepted: commit them before closing
    await this.walSync?.drained();
    this.walSync?.close();
    await this.settled();
    await this.checkpointer.stop();
    this.hub.close();
    this.db.close();
    this.lock.close();
  }

  // ---- helpers ------------------------------------------------------------------------------

  private read<T>(fn: () => T): Promise<T> {
    try {
      if (this.closed) throw new StorageError('Closed', 'storage is closed');
      return Promise.resolve(fn());
    } catch (e) {
      return Promise.reject(e);
    }
  }

  private readRevision(requested: Revision | undefined): Revision {
    if (requested === undefined || requested === 0) return this.rev;
    validateRevision('revision', requested);
    if (requested > this.rev) {
      throw new StorageError('FutureRevision', `Too large resource version: ${requested}, current: ${this.rev}`, { revision: this.rev });
    }
    if (requested < this.compacted) {
      throw new StorageError('Compacted', `revision ${requested} has been compacted (${this.compacted})`, {
        revision: this.rev,
        compactedRevision: this.compacted,
      });
    }
    return requested;
  }
}

function rowKV(key: string, row: LatestRow): KeyValue {
  return { key, value: row.value as string, createRevision: row.create_revision, modRevision: row.id };
}

function logEvent(r: LogRow): WatchEvent {
  const isDelete = r.deleted === 1;
  return {
    type: isDelete ? 'delete' : 'put',
    key: r.name,
    value: isDelete ? undefined : (r.value ?? undefined),
    prevValue: r.old_value ?? undefined,
    modRevision: r.id,
    createRevision: r.create_revision,
    prevModRevision: r.created === 1 ? 0 : r.prev_revision,
    isCreate: r.created === 1,
  };
}

/**
 * Opens `<db>.lock` and holds an exclusive transaction on it for the life of the storage, so a
 * second process (or a second SqliteStorage in this one) cannot open the same database: the
 * database itself is shared by this process's writer and checkpointer connections.
 */
function lockDatabase(path: string): Database.Database {
  const lock = new Database(`${path}.lock`, { timeout: 0 });
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('BEGIN EXCLUSIVE');
  } catch (e) {
    lock.close();
    if (e instanceof Error && /locked|busy/i.test(e.message)) {
      throw new StorageError('Invalid', `database ${path} is in use by another process: ${e.message}`);
    }
    throw e;
  }
  return lock;
}
