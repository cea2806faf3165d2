// Events expire as upstream's --event-ttl makes them (default 1 h): upstream stores every Event
// write with an etcd lease of the TTL, so an event goes away TTL after its last create or update.
// Our storage backends have no leases; this controller plays them. It lists the events, then
// watches them, and keeps a deadline per event: TTL after a write it saw; for an event already
// stored when it started, TTL after the latest write time the object records (creationTimestamp and
// every managedFields time), so expiry keeps counting across restarts. A sweep every
// `sweepIntervalMs` deletes each event past its deadline with uid and resourceVersion
// preconditions, so an event written again in between stays (its watch event moves the deadline).

import { restartWatchLater } from '../controller/restart-watch.ts';
import { ApiError } from '../errors/api-error.ts';
import { isObj, metaOf, type Obj } from '../api/object.ts';
import type { Registry } from '../registry/registry.ts';
import type { Store, WatchStream } from '../registry/store.ts';

/** Upstream's --event-ttl default. */
export const DEFAULT_EVENT_TTL_MS = 3_600_000;

export interface EventExpiryOptions {
  registry: Registry;
  /** How long an event lives after its last write, in milliseconds (upstream --event-ttl, default 1 h). */
  ttlMs: number;
  /** How often expired events are looked for (default a tenth of the TTL, between 100 ms and 1 min). */
  sweepIntervalMs?: number;
  /** The clock (tests). */
  now?: () => number;
  /** Problems the controller retries (default: stderr). */
  log?: (message: string) => void;
}

interface Deadline {
  namespace: string;
  name: string;
  uid: string;
  resourceVersion: string;
  expiresAt: number;
}

/** Parses an RFC 3339 time; undefined when absent or malformed. */
function timeOf(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

/** The latest write the object records: its creation and each manager's last write time. */
export function lastRecordedWrite(obj: Obj): number | undefined {
  const meta = metaOf(obj);
  let latest = timeOf(meta.creationTimestamp);
  for (const entry of Array.isArray(meta.managedFields) ? meta.managedFields : []) {
    const t = isObj(entry) ? timeOf(entry.time) : undefined;
    if (t !== undefined && (latest === undefined || t > latest)) latest = t;
  }
  return latest;
}

export class EventExpiry {
  private readonly store: Store;
  private readonly deadlines = new Map<string, Deadline>();
  private readonly now: () => number;
  private stream: WatchStream | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly o: EventExpiryOptions) {
    const store = o.registry.storeFor('', 'events');
    if (!store) throw new Error('no events store');
    this.store = store;
    this.now = o.now ?? Date.now;
  }

  private log(m: string): void {
    (this.o.log ?? ((x: string) => process.stderr.write(`event expiry: ${x}\n`)))(m);
  }

  private get sweepIntervalMs(): number {
    return this.o.sweepIntervalMs ?? Math.min(Math.max(this.o.ttlMs / 10, 100), 60_000);
  }

  async start(): Promise<void> {
    await this.follow();
    this.timer = setInterval(() => void this.sweep(), this.sweepIntervalMs);
    this.timer.unref(); // never keeps the process alive
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.stream?.stop();
    await this.sweeping;
  }

  /** When the event expires, in the controller's clock; undefined when it is not tracked. */
  deadline(namespace: string, name: string): number | undefined {
    return this.deadlines.get(`${namespace}/${name}`)?.expiresAt;
  }

  private record(obj: Obj, writtenAt: number): void {
    const m = metaOf(obj);
    const namespace = m.namespace ?? '';
    const name = m.name ?? '';
    this.deadlines.set(`${namespace}/${name}`, { namespace, name, uid: m.uid ?? '', resourceVersion: m.resourceVersion ?? '', expiresAt: writtenAt + this.o.ttlMs });
  }

  /** Lists every event (deadlines from their recorded writes), then watches from the list's revision. */
  private async follow(): Promise<void> {
    const listed = new Set<string>();
    let token: string | undefined;
    let revision = '';
    do {
      const page = await this.store.list(undefined, { limit: 500, continue: token });
      revision = page.metadata.resourceVersion;
      for (const item of page.items) {
        const m = metaOf(item);
        const key = `${m.namespace ?? ''}/${m.name ?? ''}`;
        listed.add(key);
        const known = this.deadlines.get(key);
        // Seen before (a watch restart) at the same version: its deadline stands.
        if (known && known.resourceVersion === m.resourceVersion) continue;
        const now = this.now();
        this.record(item, Math.min(lastRecordedWrite(item) ?? now, now));
      }
      token = page.metadata.continue || undefined;
    } while (token);
    for (const key of [...this.deadlines.keys()]) if (!listed.has(key)) this.deadlines.delete(key);
    if (this.stopped) return;
    this.stream = await this.store.watch(undefined, { resourceVersion: revision }, {
      send: (type, object) => {
        if (type === 'BOOKMARK') return;
        const m = metaOf(object);
        if (type === 'DELETED') this.deadlines.delete(`${m.namespace ?? ''}/${m.name ?? ''}`);
        else this.record(object, this.now());
      },
      error: (e) => this.log(`watch: ${e.message}`),
      // the list that starts the reopened watch brings the state back
      end: () => restartWatchLater({ stopped: () => this.stopped, reopen: () => this.follow(), log: (m) => this.log(m) }),
    });
  }

  /** Deletes every event past its deadline; one sweep at a time. Resolves when done (tests call it). */
  sweep(): Promise<void> {
    this.sweeping ??= this.deleteExpired().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async deleteExpired(): Promise<void> {
    const now = this.now();
    for (const d of [...this.deadlines.values()]) {
      if (this.stopped) return;
      if (d.expiresAt > now) continue;
      try {
        await this.store.delete(d.namespace, d.name, { preconditions: { uid: d.uid, resourceVersion: d.resourceVersion } });
        this.deadlines.delete(`${d.namespace}/${d.name}`);
      } catch (e) {
        // Gone already, or written again since (the watch brings its new deadline).
        if (e instanceof ApiError && (e.code === 404 || e.code === 409)) continue;
        this.log(`deleting ${d.namespace}/${d.name}: ${(e as Error).message}`);
      }
    }
  }
}
