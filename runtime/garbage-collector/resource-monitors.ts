// One informer per served resource (upstream's monitors), kept in step with the registry: resources
// appearing later (custom resources of a CRD that becomes established) are followed from the next
// sync, resources that go away stop being followed and their objects leave the graph. When a watch
// ends (storage closed, revision compacted) the informer lists again, and objects its new listing
// no longer holds are reported deleted.

import { metaOf, type Obj } from '../api/object.ts';
import { Informer } from '../controller/informer.ts';
import type { Registry } from '../registry/registry.ts';
import type { Store } from '../registry/store.ts';

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

/** One resource followed by an informer: every object observed, deletions and each (re)list reported. */
class ResourceMonitor {
  private readonly informer: Informer;

  constructor(
    readonly store: Store,
    private readonly key: string,
    events: MonitorEvents,
  ) {
    const { apiVersion } = store;
    const { kind } = store.descriptor;
    this.informer = new Informer(store, {
      onChange: (type, object) => {
        if (type === 'DELETED') events.deleted(key, String(metaOf(object).uid ?? ''));
        else events.observe(key, object, apiVersion, kind);
      },
      onSynced: (objects) => {
        for (const o of objects) events.observe(key, o, apiVersion, kind);
        events.listed(key, new Set(objects.map((o) => String(metaOf(o).uid ?? ''))));
      },
      // the graph is the collector's cache: a relist reaches it through onSynced (listed reports what went)
      cache: false,
      log: (m) => events.log(`watch ${key}: ${m}`),
    });
  }

  /** Lists and follows the resource; resolves once listed. */
  start(): Promise<void> {
    return this.informer.start();
  }

  stop(): void {
    this.informer.stop();
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
