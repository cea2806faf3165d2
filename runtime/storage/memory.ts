// In-memory backend with full MVCC history (until compaction): for tests and for a throwaway server.

import { AutoCompactor, DEFAULT_AUTO_COMPACTION, type AutoCompactionOptions } from './compactor.ts';
import { SortedKeyIndex } from './key-index.ts';
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
import { checkRequestSize, DEFAULT_MAX_REQUEST_BYTES } from './request-size.ts';
import { WatchHub, type EventLogPage } from './watch-hub.ts';

export interface MemoryStorageOptions {
  /** false disables it; default keeps 5 minutes of history. */
  readonly autoCompaction?: AutoCompactionOptions | false;
  /** The largest key plus value a write takes, as etcd's --max-request-bytes (default 1.5 MiB; 0: no bound). */
  readonly maxRequestBytes?: number;
}

interface Version {
  readonly rev: Revision;
  /** undefined: a tombstone. */
  readonly value: string | undefined;
  readonly createRevision: Revision;
}

export class MemoryStorage implements Storage {
  readonly kind = 'memory';
  private rev: Revision = 0;
  private compacted: Revision = 0;
  private readonly versions = new Map<string, Version[]>();
  /** Every key that has a version, in byte-wise order. */
  private keys = new SortedKeyIndex();
  /** The live keys at the latest revision (counts what remains after a page without scanning it). */
  private readonly live = new SortedKeyIndex();
  /** history[i] is the event of revision historyBase + 1 + i. */
  private history: WatchEvent[] = [];
  private historyBase: Revision = 0;
  private readonly hub: WatchHub;
  private readonly compactor: AutoCompactor | undefined;
  private closed = false;
  private writes = 0;

  /** etcd's bound on one write (request-size.ts); 0: none. */
  readonly maxRequestBytes: number;

  constructor(options: MemoryStorageOptions = {}) {
    this.maxRequestBytes = options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
    this.hub = new WatchHub({
      log: { readEvents: (p, after, upTo, limit) => this.readEvents(p, after, upTo, limit) },
      initialRevision: 0,
      compactedRevision: () => this.compacted,
      ringCapacity: 0,
    });
    const ac = options.autoCompaction === undefined ? DEFAULT_AUTO_COMPACTION : options.autoCompaction;
    this.compactor = ac === false ? undefined : new AutoCompactor(this.syncView(), ac);
  }

  private syncView() {
    return {
      currentRevisionSync: () => this.rev,
      compactedRevisionSync: () => this.compacted,
      compact: (r: Revision) => this.compact(r),
    };
  }

  // ---- writes -------------------------------------------------------------------------------

  create(key: string, value: string): Promise<Revision> {
    return attempt(() => {
      this.checkOpen();
      validateKey(key);
      validateValue(value);
      checkRequestSize(key, value, this.maxRequestBytes);
      const latest = this.latest(key);
      if (latest && latest.value !== undefined) {
        throw new StorageError('KeyExists', `key ${key} already exists`, { key, revision: this.rev, current: toKV(key, latest) });
      }
      return this.commit(key, value, latest, true).modRevision;
    });
  }

  update(key: string, value: string, expectedRevision: Revision): Promise<Revision> {
    return attempt(() => {
      this.checkOpen();
      validateKey(key);
      validateValue(value);
      checkRequestSize(key, value, this.maxRequestBytes);
      validateRevision('expectedRevision', expectedRevision, false);
      const latest = this.liveOrThrow(key, expectedRevision);
      return this.commit(key, value, latest, false).modRevision;
    });
  }

  delete(key: string, expectedRevision?: Revision): Promise<DeleteResult> {
    return attempt(() => {
      this.checkOpen();
      validateKey(key);
      if (expectedRevision !== undefined) validateRevision('expectedRevision', expectedRevision, false);
      const latest = this.liveOrThrow(key, expectedRevision);
      const ev = this.commit(key, undefined, latest, false);
      return { revision: ev.modRevision, prev: toKV(key, latest) };
    });
  }

  private liveOrThrow(key: string, expected: Revision | undefined): Version {
    const latest = this.latest(key);
    if (!latest || latest.value === undefined) throw new StorageError('NotFound', `key ${key} not found`, { key, revision: this.rev });
    if (expected !== undefined && latest.rev !== expected) {
      throw new StorageError('Conflict', `key ${key} has revision ${latest.rev}, not ${expected}`, {
        key,
        revision: this.rev,
        current: toKV(key, latest),
      });
    }
    return latest;
  }

  private commit(key: string, value: string | undefined, prev: Version | undefined, isCreate: boolean): WatchEvent {
    const rev = ++this.rev;
    const prevLive = prev && prev.value !== undefined ? prev : undefined;
    const createRevision = isCreate ? rev : (prevLive as Version).createRevision;
    let vs = this.versions.get(key);
    if (!vs) {
      vs = [];
      this.versions.set(key, vs);
      this.keys.add(key);
    }
    vs.push({ rev, value, createRevision });
    if (value === undefined) this.live.remove(key);
    else if (isCreate) this.live.add(key);
    const ev: WatchEvent = {
      type: value === undefined ? 'delete' : 'put',
      key,
      value,
      prevValue: prevLive?.value,
      modRevision: rev,
      createRevision,
      prevModRevision: isCreate ? 0 : (prev as Version).rev,
      isCreate,
    };
    this.history.push(ev);
    this.writes++;
    this.hub.publish([ev]);
    return ev;
  }

  // ---- reads --------------------------------------------------------------------------------

  get(key: string, options: GetOptions = {}): Promise<GetResult> {
    return attempt(() => {
      this.checkOpen();
      validateKey(key);
      const at = this.readRevision(options.revision);
      const v = this.at(key, at);
      return { kv: v && v.value !== undefined ? toKV(key, v) : undefined, revision: at };
    });
  }

  list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    return attempt(() => {
      this.checkOpen();
      validatePrefix(prefix);
      const at = this.readRevision(options.revision);
      const limit = options.limit ?? 0;
      validateRevision('limit', limit);
      const start = options.startKey !== undefined && compareKeys(options.startKey, prefix) > 0 ? options.startKey : prefix;
      const items: KeyValue[] = [];
      let remaining = 0;
      // At the latest revision the live-key index counts the rest of the range: the walk stops
      // at the first key past the page.
      const latest = at === this.rev && limit > 0;
      for (const key of this.keys.from(start)) {
        if (!key.startsWith(prefix)) break;
        const v = this.at(key, at);
        if (!v || v.value === undefined) continue;
        if (limit === 0 || items.length < limit) items.push(toKV(key, v));
        else if (latest) {
          remaining = this.live.count(start, prefixEnd(prefix)) - limit;
          break;
        } else remaining++;
      }
      return { items, revision: at, more: remaining > 0, remaining };
    });
  }

  watch(prefix: string, fromRevision: Revision, onEvent: WatchListener, onError?: WatchErrorListener): Promise<WatchHandle> {
    return attempt(() => {
      this.checkOpen();
      validatePrefix(prefix);
      validateRevision('fromRevision', fromRevision);
      return this.hub.watch(prefix, fromRevision, onEvent, onError);
    });
  }

  private readEvents(prefix: string, after: Revision, upTo: Revision, limit: number): EventLogPage {
    const events: WatchEvent[] = [];
    let r = Math.max(after, this.historyBase);
    while (r < upTo && events.length < limit) {
      r++;
      const ev = this.history[r - this.historyBase - 1];
      if (ev.key.startsWith(prefix)) events.push(ev);
    }
    return { events, scannedThrough: r };
  }

  // ---- compaction and state -----------------------------------------------------------------

  compact(revision: Revision): Promise<void> {
    return attempt(() => {
      this.checkOpen();
      validateRevision('revision', revision, false);
      if (revision > this.rev) throw new StorageError('FutureRevision', `revision ${revision} is ahead of ${this.rev}`, { revision: this.rev });
      if (revision <= this.compacted) {
        throw new StorageError('Compacted', `revision ${revision} is already compacted (${this.compacted})`, {
          revision: this.rev,
          compactedRevision: this.compacted,
        });
      }
      this.compacted = revision;
      let dropped = false;
      for (const [key, vs] of this.versions) {
        // Keep the newest version at or below the compaction point (unless it is a tombstone) and everything after.
        let keepFrom = 0;
        for (let i = 0; i < vs.length && vs[i].rev <= revision; i++) keepFrom = i;
        if (vs[keepFrom].rev <= revision && vs[keepFrom].value === undefined) keepFrom++;
        if (keepFrom > 0) vs.splice(0, keepFrom);
        if (vs.length === 0) {
          this.versions.delete(key);
          dropped = true;
        }
      }
      if (dropped) this.keys = SortedKeyIndex.fromSorted([...this.keys.from('')].filter((k) => this.versions.has(k)));
      const cut = revision - this.historyBase;
      if (cut > 0) {
        this.history = this.history.slice(cut);
        this.historyBase = revision;
      }
    });
  }

  currentRevision(): Promise<Revision> {
    return attempt(() => {
      this.checkOpen();
      return this.rev;
    });
  }

  compactedRevision(): Promise<Revision> {
    return attempt(() => {
      this.checkOpen();
      return this.compacted;
    });
  }

  stats(): StorageStats {
    return {
      commits: this.writes,
      writes: this.writes,
      replayFromRing: this.hub.replayFromRing,
      replayFromLog: this.hub.replayFromLog,
      watchers: this.hub.watcherCount,
    };
  }

  /** For the auto-compactor and tests. */
  autoCompactor(): AutoCompactor | undefined {
    return this.compactor;
  }

  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.compactor?.stop();
      this.hub.close();
    }
    return Promise.resolve();
  }

  // ---- helpers ------------------------------------------------------------------------------

  private checkOpen(): void {
    if (this.closed) throw new StorageError('Closed', 'storage is closed');
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

  private latest(key: string): Version | undefined {
    const vs = this.versions.get(key);
    return vs ? vs[vs.length - 1] : undefined;
  }

  /** The newest version with rev <= at. */
  private at(key: string, at: Revision): Version | undefined {
    const vs = this.versions.get(key);
    if (!vs) return undefined;
    let lo = 0;
    let hi = vs.length; // first index with rev > at
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (vs[mid].rev <= at) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? undefined : vs[lo - 1];
  }
}

function toKV(key: string, v: Version): KeyValue {
  return { key, value: v.value as string, createRevision: v.createRevision, modRevision: v.rev };
}

/** Run synchronously, settle as a promise (so errors are rejections, as with every backend). */
function attempt<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (e) {
    return Promise.reject(e);
  }
}
