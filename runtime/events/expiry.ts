// Events expire as upstream's --event-ttl makes them (default 1 h): upstream stores every Event
// write with an etcd lease of the TTL, so an event goes away TTL after its last create or update.
// Our storage backends have no leases; this controller plays them. It follows the events with an
// informer and keeps a deadline per event: TTL after a write it saw; for an event already
// stored when it started, TTL after the latest write time the object records (creationTimestamp and
// every managedFields time), so expiry keeps counting across restarts. A sweep every
// `sweepIntervalMs` deletes each event past its deadline with uid and resourceVersion
// preconditions, so an event written again in between stays (its watch event moves the deadline).

import { Informer } from '../controller/informer.ts';
import { ApiError } from '../errors/api-error.ts';
import { isObj, metaOf, type Obj } from '../api/object.ts';
import type { Registry } from '../registry/registry.ts';
import type { Store } from '../registry/store.ts';

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
  private informer: Informer | undefined;
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
    this.informer?.stop();
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

  /**
   * Follows the events: one found by a (re)list gets its deadline from its recorded write (an event
   * seen before at the same version keeps its deadline: the informer reports no change), one written
   * while followed from now.
   */
  private async follow(): Promise<void> {
    this.informer = new Informer(this.store, {
      onChange: (type, object, _old, relisted) => {
        const m = metaOf(object);
        if (type === 'DELETED') this.deadlines.delete(`${m.namespace ?? ''}/${m.name ?? ''}`);
        else {
          const now = this.now();
          this.record(object, relisted ? Math.min(lastRecordedWrite(object) ?? now, now) : now);
        }
      },
      log: (m) => this.log(m),
    });
    await this.informer.start();
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
