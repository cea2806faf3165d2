// One watch per served resource (upstream's monitors), kept in step with the registry: resources
// appearing later (custom resources of a CRD that becomes established) are watched from the next
// sync, resources that go away stop being watched and their objects leave the graph. A watch's
// initial events list every object; when a watch ends (storage closed, revision compacted) it is
// reopened, and objects its new listing no longer holds are reported deleted, as an informer's
// relist does.

import { restartWatchLater } from '../controller/restart-watch.ts';
import type { Obj } from '../registry/object.ts';
import { metaOf } from '../registry/object.ts';
import type { Registry } from '../registry/registry.ts';
import type { Store, WatchStream } from '../registry/store.ts';

export interface MonitorEvents {
  /** Listed, added or modified. */
  observe(resource: string, obj: Obj, apiVersion: string, kind: string): void;
  deleted(resource: string, uid: string): void;
  /** A (re)listing of `resource` is complete: `seen` holds every uid it listed. */
  listed(resource: string, seen: ReadonlySet<string>): void;
  /** The resource is no longer served. */
  removed(resource: string): void;
  log(message: string): void;
}

/** Resources the collector never watches: Events, as upstream ignores them. */
export const IGNORED_RESOURCES: ReadonlySet<string> = new Set(['/events', 'events.cluster.io/events']);

export function resourceKey(store: Store): string {
  return `${store.descriptor.group}/${store.descriptor.plural}`;
}

class ResourceMonitor {
  private stream: WatchStream | undefined;
  private stopped = false;
  /** Failed reopen attempts in a row. */
  private failures = 0;

  constructor(
    readonly store: Store,
    private readonly key: string,
    private readonly events: MonitorEvents,
  ) {}

  /** Lists (through the watch's initial events) and follows the resource; resolves once listed. */
  async start(): Promise<void> {
    const seen = new Set<string>();
    let listing = true;
    const { apiVersion } = this.store;
    const { kind } = this.store.descriptor;
    const stream = await this.store.watch(undefined, {}, {
      send: (type, object) => {
        if (this.stopped || type === 'BOOKMARK') return;
        const uid = String(metaOf(object).uid ?? '');
        if (type === 'DELETED') {
          seen.delete(uid);
          this.events.deleted(this.key, uid);
          return;
        }
        if (listing) seen.add(uid);
        this.events.observe(this.key, object, apiVersion, kind);
      },
      error: (e) => this.events.log(`watch ${this.key}: ${e.message}`),
      end: () => this.restartLater(),
    });
    listing = false;
    if (this.stopped) {
      stream.stop();
      return;
    }
    this.stream = stream;
    this.events.listed(this.key, seen);
  }

  stop(): void {
    this.stopped = true;
    this.stream?.stop();
  }

  /** Reopens the ended watch after a pause, and keeps trying while reopening fails (backing off, one log line per outage). */
  private restartLater(): void {
    restartWatchLater({
      stopped: () => this.stopped,
      reopen: async () => {
        try {
          await this.start();
          this.failures = 0;
        } catch (e) {
          if (this.failures === 0) this.events.log(`watch ${this.key}: ${(e as Error).message} (retrying)`);
          this.failures++;
          this.restartLater();
        }
      },
      log: (m) => this.events.log(`${this.key}: ${m}`),
      delayMs: Math.min(500 * 2 ** this.failures, 30_000),
    });
  }
}

export class ResourceMonitors {
  private readonly monitors = new Map<string, ResourceMonitor>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly registry: Registry,
    private readonly events: MonitorEvents,
    private readonly resyncMs: number,
  ) {}

  /** Watches every served resource; resolves once each has been listed. */
  async start(): Promise<void> {
    await this.sync();
    if (this.stopped) return;
    this.timer = setInterval(() => {
      this.sync().catch((e: unknown) => this.events.log(`resync: ${(e as Error).message}`));
    }, this.resyncMs);
    this.timer.unref(); // never keeps the process alive
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    for (const m of this.monitors.values()) m.stop();
    this.monitors.clear();
  }

  /** Starts monitors for new (or replaced) stores and stops those of resources no longer served. */
  private async sync(): Promise<void> {
    const current = new Map<string, Store>();
    for (const s of this.registry.allStores()) {
      const key = resourceKey(s);
      if (!IGNORED_RESOURCES.has(key)) current.set(key, s);
    }
    const starting: Promise<void>[] = [];
    for (const [key, store] of current) {
      const existing = this.monitors.get(key);
      if (existing?.store === store) continue;
      existing?.stop();
      const m = new ResourceMonitor(store, key, this.events);
      this.monitors.set(key, m);
      starting.push(
        m.start().catch((e: unknown) => {
          this.events.log(`watch ${key}: ${(e as Error).message}`);
          // the next sync tries again
          if (this.monitors.get(key) === m) this.monitors.delete(key);
        }),
      );
    }
    for (const [key, m] of this.monitors) {
      if (current.has(key)) continue;
      m.stop();
      this.monitors.delete(key);
      this.events.removed(key);
    }
    await Promise.all(starting);
  }
}
