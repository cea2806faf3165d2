// Fan-out of committed changes to watchers, shared by the backends.
//
// The backend publishes each committed event once. The hub keeps a bounded ring of recent events
// (contiguous revisions) and groups live watchers by prefix, so one event costs one prefix test per
// distinct prefix plus one call per matching watcher, whatever the number of watchers.
//
// A new watcher starts in catch-up: it reads from the ring when its start point is inside the ring's
// window, otherwise from the backend's log (a bounded query per step), a few thousand events per tick,
// until it reaches the last published revision; then, in the same synchronous step, it joins the live
// group. Each watcher remembers the last revision it delivered and never delivers one at or below it,
// so there is neither a gap nor a repeat.

import { StorageError, type Revision, type WatchErrorListener, type WatchEvent, type WatchHandle, type WatchListener } from './interface.ts';

export interface EventLogPage {
  /** Matching events with after < modRevision <= scannedThrough, in revision order. */
  readonly events: WatchEvent[];
  /** Every revision up to this one has been examined. */
  readonly scannedThrough: Revision;
}

/** The backend's durable (or in-memory) history, read when the ring does not reach back far enough. */
export interface EventLog {
  readEvents(prefix: string, after: Revision, upTo: Revision, limit: number): EventLogPage;
}

export interface WatchHubOptions {
  readonly log: EventLog;
  /** The last committed revision at construction time. */
  readonly initialRevision: Revision;
  readonly compactedRevision: () => Revision;
  /** Events kept in the ring; 0 disables the ring (the memory backend's log is already in memory). */
  readonly ringCapacity?: number;
  /** Upper bound on the characters (values + prevValues) held by the ring. */
  readonly ringMaxChars?: number;
  /** Events delivered per watcher per tick while catching up. */
  readonly catchUpBatch?: number;
}

class Watcher implements WatchHandle {
  last: Revision;
  closed = false;
  live = false;
  scheduled = false;

  constructor(
    readonly hub: WatchHub,
    readonly prefix: string,
    fromRevision: Revision,
    readonly onEvent: WatchListener,
    readonly onError: WatchErrorListener | undefined,
  ) {
    this.last = fromRevision;
  }

  cancel(): void {
    this.hub.remove(this);
  }

  /** Returns false when the watcher was closed because its listener threw. */
  deliver(ev: WatchEvent): boolean {
    if (this.closed || ev.modRevision <= this.last) return true;
    this.last = ev.modRevision;
    try {
      this.onEvent(ev);
      return true;
    } catch (e) {
      this.hub.fail(this, new StorageError('Closed', `watch listener threw: ${e instanceof Error ? e.message : String(e)}`));
      return false;
    }
  }
}

export class WatchHub {
  private readonly log: EventLog;
  private readonly compacted: () => Revision;
  private readonly capacity: number;
  private readonly maxChars: number;
  private readonly batch: number;

  // Ring: events for revisions (lo, hi], event r at buf[r % capacity].
  private readonly buf: (WatchEvent | undefined)[];
  private lo: Revision;
  private hi: Revision;
  private chars = 0;

  private readonly groups = new Map<string, Set<Watcher>>();
  private readonly catching = new Set<Watcher>();
  private pending: WatchEvent[] = [];
  private publishing = false;
  private closed = false;

  replayFromRing = 0;
  replayFromLog = 0;

  constructor(options: WatchHubOptions) {
    this.log = options.log;
    this.compacted = options.compactedRevision;
    this.capacity = options.ringCapacity ?? 8192;
    this.maxChars = options.ringMaxChars ?? 64 * 1024 * 1024;
    this.batch = options.catchUpBatch ?? 2000;
    this.buf = new Array<WatchEvent | undefined>(this.capacity);
    this.lo = options.initialRevision;
    this.hi = options.initialRevision;
  }

  /** The last published revision. */
  get revision(): Revision {
    return this.hi;
  }

  get watcherCount(): number {
    let n = this.catching.size;
    for (const g of this.groups.values()) n += g.size;
    return n;
  }

  /** Publish committed events, in revision order, contiguous with what was published before. */
  publish(events: readonly WatchEvent[]): void {
    for (const ev of events) this.pending.push(ev);
    if (this.publishing) return; // re-entrant publish from a listener: the outer loop delivers in order
    this.publishing = true;
    try {
      for (let i = 0; i < this.pending.length; i++) {
        const ev = this.pending[i];
        this.append(ev);
        for (const [prefix, group] of this.groups) {
          if (!ev.key.startsWith(prefix)) continue;
          for (const w of group) w.deliver(ev);
        }
      }
    } finally {
      this.pending = [];
      this.publishing = false;
    }
  }

  watch(prefix: string, fromRevision: Revision, onEvent: WatchListener, onError?: WatchErrorListener): WatchHandle {
    if (this.closed) throw new StorageError('Closed', 'storage is closed');
    const compacted = this.compacted();
    if (fromRevision < compacted) {
      throw new StorageError('Compacted', `too old resource version: ${fromRevision} (${compacted})`, {
        revision: this.hi,
        compactedRevision: compacted,
      });
    }
    const w = new Watcher(this, prefix, fromRevision, onEvent, onError);
    this.catching.add(w);
    this.schedule(w);
    return w;
  }

  remove(w: Watcher): void {
    if (w.closed) return;
    w.closed = true;
    this.catching.delete(w);
    const g = this.groups.get(w.prefix);
    if (g) {
      g.delete(w);
      if (g.size === 0) this.groups.delete(w.prefix);
    }
  }

  fail(w: Watcher, err: StorageError): void {
    if (w.closed) return;
    this.remove(w);
    if (w.onError) {
      try {
        w.onError(err);
      } catch {
        // the watcher is gone; nothing else to tell
      }
    }
  }

  /** End every watch with a Closed error. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const all: Watcher[] = [...this.catching];
    for (const g of this.groups.values()) all.push(...g);
    for (const w of all) this.fail(w, new StorageError('Closed', 'storage is closed'));
  }

  private append(ev: WatchEvent): void {
    const r = ev.modRevision;
    if (r !== this.hi + 1) {
      // Not contiguous (should not happen): restart the window here.
      this.buf.fill(undefined);
      this.chars = 0;
      this.lo = r - 1;
    }
    this.hi = r;
    if (this.capacity === 0) {
      this.lo = r;
      return;
    }
    if (this.hi - this.lo > this.capacity) this.evict();
    this.buf[r % this.capacity] = ev;
    this.chars += sizeOf(ev);
    while (this.chars > this.maxChars && this.hi - this.lo > 1) this.evict();
  }

  private evict(): void {
    const r = this.lo + 1;
    const i = r % this.capacity;
    const old = this.buf[i];
    if (old && old.modRevision === r) {
      this.chars -= sizeOf(old);
      this.buf[i] = undefined;
    }
    this.lo = r;
  }

  private schedule(w: Watcher): void {
    if (w.scheduled) return;
    w.scheduled = true;
    setImmediate(() => {
      w.scheduled = false;
      this.step(w);
    });
  }

  /** One bounded catch-up step; joins the live group when caught up. */
  private step(w: Watcher): void {
    if (w.closed) return;
    let budget = this.batch;
    while (w.last < this.hi && budget > 0) {
      if (w.last < this.compacted()) {
        this.fail(w, new StorageError('Compacted', `too old resource version: ${w.last} (${this.compacted()})`, {
          revision: this.hi,
          compactedRevision: this.compacted(),
        }));
        return;
      }
      if (this.capacity > 0 && w.last >= this.lo) {
        const end = Math.min(this.hi, w.last + budget);
        for (let r = w.last + 1; r <= end; r++) {
          budget--;
          const ev = this.buf[r % this.capacity];
          if (!ev || ev.modRevision !== r) break; // evicted by a publish from inside a listener: re-evaluate
          this.replayFromRing++;
          if (ev.key.startsWith(w.prefix)) {
            if (!w.deliver(ev)) return;
          } else {
            w.last = r;
          }
          if (w.closed) return;
        }
      } else {
        // The ring holds (lo, hi]; without a ring lo === hi. Bound the revisions one query may scan.
        const upTo = Math.min(this.lo, w.last + this.batch * 25);
        const page = this.log.readEvents(w.prefix, w.last, upTo, budget);
        budget -= Math.max(1, page.events.length);
        for (const ev of page.events) {
          this.replayFromLog++;
          if (!w.deliver(ev)) return;
          if (w.closed) return;
        }
        if (page.scannedThrough > w.last) w.last = page.scannedThrough;
      }
    }
    if (w.closed) return;
    if (w.last >= this.hi) {
      this.catching.delete(w);
      w.live = true;
      let g = this.groups.get(w.prefix);
      if (!g) {
        g = new Set();
        this.groups.set(w.prefix, g);
      }
      g.add(w);
    } else {
      this.schedule(w);
    }
  }
}

function sizeOf(ev: WatchEvent): number {
  return (ev.value?.length ?? 0) + (ev.prevValue?.length ?? 0) + ev.key.length + 64;
}
