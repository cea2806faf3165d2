// One informer (client-go's reflector + indexer, in process): watch a resource from its current
// state (the watch's initial ADDED events), keep every object in a cache by namespace/name, tell a
// handler what changed, and open the watch again when it ends (storage closed, compaction, etcd
// gone), reconciling the cache with the fresh state. Used by the registry's namespace index, the
// webhook configurations and the controllers.
// Over this server's own Store (runtime/registry), by shape only, so that this layer does not
// import the registry.

import { metaOf, type Obj } from '../api/object.ts';
import { restartWatchLater } from './restart-watch.ts';

export type InformerEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** What an informer watches: the registry's Store fits. */
export interface WatchSource {
  watch(
    namespace: undefined,
    params: Record<string, never>,
    sink: { send(type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK', object: Obj): void; error(e: Error): void; end(): void },
  ): Promise<{ stop(): void }>;
}

export interface InformerOptions {
  /**
   * Every change after it reached the cache (`old`: the cached state before, on MODIFIED and
   * DELETED); `relisted`: found by a (re)list rather than seen as it happened.
   */
  onChange?(type: InformerEventType, obj: Obj, old: Obj | undefined, relisted: boolean): void;
  /** After each (re)list reached the cache, with every object listed. */
  onSynced?(objects: readonly Obj[]): void;
  /** Problems (the informer retries): default stderr. */
  log?: (message: string) => void;
  /**
   * false: no cache (a controller that keeps its own state, as the garbage collector's graph): each
   * (re)list reaches it through onSynced only, and changes seen live through onChange.
   */
  cache?: boolean;
  /** First pause before reopening an ended watch (default 500 ms). */
  restartDelayMs?: number;
}

/** `namespace/name`, or `name` for cluster-scoped objects. */
export function cacheKey(obj: Obj): string {
  const m = metaOf(obj);
  return m.namespace ? `${m.namespace}/${String(m.name)}` : String(m.name);
}

export class Informer {
  private cache = new Map<string, Obj>();
  private stream: { stop(): void } | undefined;
  private stopped = false;
  private synced = false;

  constructor(
    private readonly source: WatchSource,
    private readonly o: InformerOptions = {},
  ) {}

  /** True once the first state is cached and while the watch is open. */
  get live(): boolean {
    return this.synced && this.stream !== undefined;
  }

  /** Resolves once the current state is in the cache. */
  async start(): Promise<void> {
    await this.open();
  }

  stop(): void {
    this.stopped = true;
    this.stream?.stop();
    this.stream = undefined;
  }

  get(key: string): Obj | undefined {
    return this.cache.get(key);
  }

  list(): Obj[] {
    return [...this.cache.values()];
  }

  private log(m: string): void {
    (this.o.log ?? ((x: string) => process.stderr.write(`informer: ${x}\n`)))(m);
  }

  private async open(): Promise<void> {
    // the watch's initial events arrive before it resolves: they are the fresh state
    const fresh = new Map<string, Obj>();
    let initial = true;
    let ended = false;
    let stream: { stop(): void } | undefined;
    stream = await this.source.watch(undefined, {}, {
      send: (type, object) => {
        if (type === 'BOOKMARK' || this.stopped) return;
        const key = cacheKey(object);
        if (initial) {
          fresh.set(key, object);
          return;
        }
        const old = this.cache.get(key);
        if (this.o.cache !== false) {
          if (type === 'DELETED') this.cache.delete(key);
          else this.cache.set(key, object);
        }
        this.o.onChange?.(type, object, old, false);
      },
      error: (e) => this.log(`watch: ${e.message}`),
      end: () => {
        ended = true;
        if (stream !== undefined && this.stream === stream) this.stream = undefined;
        restartWatchLater({ stopped: () => this.stopped, reopen: () => this.open(), log: (m) => this.log(m), delayMs: this.o.restartDelayMs });
      },
    });
    initial = false;
    if (this.stopped) {
      stream.stop();
      return;
    }
    // an end during the initial events has scheduled the reopen already
    if (!ended) this.stream = stream;
    this.replace(fresh);
    this.synced = true;
    this.o.onSynced?.([...fresh.values()]);
  }

  /** The cache becomes `fresh`; the differences are reported as changes (without a cache: onSynced alone says it). */
  private replace(fresh: Map<string, Obj>): void {
    if (this.o.cache === false) return;
    const before = this.cache;
    this.cache = fresh;
    for (const [key, old] of before) if (!fresh.has(key)) this.o.onChange?.('DELETED', old, old, true);
    for (const [key, obj] of fresh) {
      const old = before.get(key);
      if (old === undefined) this.o.onChange?.('ADDED', obj, undefined, true);
      else if (metaOf(old).resourceVersion !== metaOf(obj).resourceVersion) this.o.onChange?.('MODIFIED', obj, old, true);
    }
  }
}
