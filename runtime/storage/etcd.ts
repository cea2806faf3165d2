// The etcd v3 backend: the storage interface on etcd's own mechanisms (see the mapping in
// interface.ts). A key `/core/configmaps/ns/name` lives at `<prefix>/core/configmaps/ns/name`
// (prefix default `/registry`); values are the JSON text as is; an object's resourceVersion is the
// key's mod revision. Several servers may share one etcd: nothing here is cached between calls.

import { Etcd3, type IKeyValue, type IOptions, type IResponseOp, type IWatchResponse, type KVClient, type LeaseClient } from 'etcd3';
import { ConsecutiveBreaker, circuitBreaker, handleWhen, noop, retry } from 'cockatiel';
import { COMPACT_REV_KEY, EtcdCompactor } from './etcd-compactor.ts';
import { classifyEtcdError, toStorageError } from './etcd-errors.ts';
import { EtcdWatchStream } from './etcd-watch-stream.ts';
import {
  StorageError,
  isStorageError,
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

export interface EtcdTls {
  /** PEM of the CA that signed etcd's serving certificate (--etcd-cafile). */
  readonly ca?: Buffer;
  /** PEM client certificate and key (--etcd-certfile, --etcd-keyfile). */
  readonly cert?: Buffer;
  readonly key?: Buffer;
}

export interface EtcdStorageOptions {
  /** Client URLs, http:// or https://. */
  readonly endpoints: readonly string[];
  /** Every key is stored under this prefix (default `/registry`, as upstream). */
  readonly prefix?: string;
  readonly tls?: EtcdTls;
  /** Periodic compaction (see etcd-compactor.ts); 0 disables. Default 300 s, as upstream. */
  readonly compactionIntervalSeconds?: number;
  /** Deadline of each etcd call (default 10 s): an unanswered call fails Unavailable, never hangs. */
  readonly requestTimeoutMs?: number;
  /** Called with failures of the periodic compaction (default: ignored, retried next interval). */
  readonly onCompactionError?: (e: unknown) => void;
}

export const DEFAULT_ETCD_PREFIX = '/registry';

/** A storage watch as the backend keeps it. */
interface EtcdWatch {
  /** Stops the etcd watch (set once etcd confirmed it). */
  cancel: () => void;
  readonly onError: WatchErrorListener | undefined;
  done: boolean;
}

/** The handle of an etcd watch: it always reports progress (the last event's or progress notification's revision). */
export interface EtcdWatchHandle extends WatchHandle {
  readonly progressRevision: Revision;
}

export class EtcdStorage implements Storage {
  readonly kind = 'etcd';
  readonly prefix: string;
  private readonly client: Etcd3;
  private readonly kv: KVClient;
  private readonly compactor: EtcdCompactor | undefined;
  private readonly watches = new Set<EtcdWatch>();
  private readonly watchStream: EtcdWatchStream;
  private closed = false;
  private writes = 0;
  /** The highest compaction point this process has seen (etcd reports it only in errors). */
  private knownCompacted = 0;
  /** The last health read, shared by checks close together. */
  private health: { at: number; result: Promise<boolean>; pending: boolean; failed: boolean } | undefined;

  constructor(options: EtcdStorageOptions) {
    this.prefix = options.prefix ?? DEFAULT_ETCD_PREFIX;
    if (this.prefix !== '' && (!this.prefix.startsWith('/') || this.prefix.endsWith('/'))) {
      throw new StorageError('Invalid', `etcd prefix ${JSON.stringify(this.prefix)} must start with '/' and not end with '/'`);
    }
    this.client = new Etcd3(etcdClientOptions(options));
    this.kv = this.client.kv;
    this.watchStream = new EtcdWatchStream(this.client.watchClient);
    const every = options.compactionIntervalSeconds ?? 300;
    this.compactor = every > 0 ? new EtcdCompactor(this.kv, every * 1000, options.onCompactionError) : undefined;
  }

  // ---- writes: one transaction each -------------------------------------------------------------

  async create(key: string, value: string): Promise<Revision> {
    validateKey(key);
    validateValue(value);
    const k = this.etcdKey(key);
    // No failure branch: the Txn is ~7% cheaper to encode and decode (bench:etcd), and a failed
    // create reads the key at the revision the Txn saw, which is what a failure branch returns.
    const res = await this.call(key, () =>
      this.kv.txn({
        compare: [{ key: k, target: 'Create', result: 'Equal', create_revision: 0 }],
        success: [{ request_put: { key: k, value: Buffer.from(value) } }],
      }),
    );
    if (!res.succeeded) {
      const revision = Number(res.header.revision);
      const seen = await this.call(key, () => this.kv.range({ key: k, revision })).catch(() => undefined);
      const kv = seen?.kvs[0];
      throw new StorageError('KeyExists', `key ${key} already exists`, { key, revision, current: kv ? this.toKeyValue(kv) : undefined });
    }
    this.writes++;
    return Number(res.header.revision);
  }

  async update(key: string, value: string, expectedRevision: Revision): Promise<Revision> {
    validateKey(key);
    validateValue(value);
    validateRevision('expectedRevision', expectedRevision, false);
    const k = this.etcdKey(key);
    const res = await this.call(key, () =>
      this.kv.txn({
        compare: [{ key: k, target: 'Mod', result: 'Equal', mod_revision: expectedRevision }],
        success: [{ request_put: { key: k, value: Buffer.from(value) } }],
        failure: [{ request_range: { key: k } }],
      }),
    );
    if (!res.succeeded) throw this.casFailure(key, expectedRevision, res.responses[0], Number(res.header.revision));
    this.writes++;
    return Number(res.header.revision);
  }

  async delete(key: string, expectedRevision?: Revision): Promise<DeleteResult> {
    validateKey(key);
    if (expectedRevision !== undefined) validateRevision('expectedRevision', expectedRevision, false);
    const k = this.etcdKey(key);
    const res = await this.call(key, () =>
      this.kv.txn({
        // unconditional: the delete still runs in a transaction, so the response carries the revision and prev_kv alike
        compare: expectedRevision === undefined ? [] : [{ key: k, target: 'Mod', result: 'Equal', mod_revision: expectedRevision }],
        success: [{ request_delete_range: { key: k, prev_kv: true } }],
        failure: [{ request_range: { key: k } }],
      }),
    );
    const revision = Number(res.header.revision);
    if (!res.succeeded) throw this.casFailure(key, expectedRevision ?? 0, res.responses[0], revision);
    const prev = res.responses[0]?.response_delete_range?.prev_kvs?.[0];
    if (!prev) throw new StorageError('NotFound', `key ${key} not found`, { key, revision });
    this.writes++;
    return { revision, prev: this.toKeyValue(prev) };
  }

  // ---- reads --------------------------------------------------------------------------------------

  async get(key: string, options: GetOptions = {}): Promise<GetResult> {
    validateKey(key);
    const at = this.readRevision(options.revision);
    const res = await this.read(key, at, () => this.kv.range({ key: this.etcdKey(key), revision: at }));
    const kv = res.kvs[0];
    return { kv: kv ? this.toKeyValue(kv) : undefined, revision: at || Number(res.header.revision) };
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    validatePrefix(prefix);
    const at = this.readRevision(options.revision);
    const limit = options.limit ?? 0;
    validateRevision('limit', limit);
    const from = this.etcdKey(prefix);
    const end = bytePrefixEnd(from);
    let start = from;
    if (options.startKey !== undefined) {
      const s = this.etcdKey(options.startKey);
      if (Buffer.compare(s, start) > 0) start = s;
    }
    // a start past the prefix's end reads nothing (etcd ranges [key, range_end)), at a checked revision
    const res = await this.read(prefix, at, () => this.kv.range({ key: start, range_end: end, revision: at, limit }));
    const items = res.kvs.map((kv) => this.toKeyValue(kv));
    const remaining = res.more ? Number(res.count) - items.length : 0;
    return { items, revision: at || Number(res.header.revision), more: res.more, remaining };
  }

  async currentRevision(): Promise<Revision> {
    this.checkOpen();
    const res = await this.call(undefined, () => this.kv.range({ key: Buffer.from(COMPACT_REV_KEY), count_only: true }));
    return Number(res.header.revision);
  }

  async compactedRevision(): Promise<Revision> {
    this.checkOpen();
    const res = await this.call(undefined, () => this.kv.range({ key: Buffer.from(COMPACT_REV_KEY) }));
    const recorded = Number(res.kvs[0]?.value.toString() ?? 0) || 0;
    this.knownCompacted = Math.max(this.knownCompacted, recorded);
    return this.knownCompacted;
  }

  /**
   * A linearizable read within `timeoutMs`: what /healthz/etcd and /readyz/etcd ask. A check while
   * one is running shares it, and a failure answers the checks of the next half second (a /readyz
   * asks twice, storage and etcd: a hung etcd costs it one timeout, not two).
   */
  checkHealth(timeoutMs = 2000): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    const now = Date.now();
    if (this.health && (this.health.pending || (this.health.failed && now - this.health.at < 500))) return this.health.result;
    const entry: { at: number; result: Promise<boolean>; pending: boolean; failed: boolean } = { at: now, result: Promise.resolve(false), pending: true, failed: false };
    entry.result = this.kv
      .range({ key: Buffer.from('health'), count_only: true }, { deadline: now + timeoutMs })
      .then(() => true)
      .catch(() => false)
      .then((ok) => {
        entry.pending = false;
        entry.failed = !ok;
        entry.at = Date.now();
        return ok;
      });
    this.health = entry;
    return entry.result;
  }

  // ---- compaction -----------------------------------------------------------------------------------

  async compact(revision: Revision): Promise<void> {
    validateRevision('revision', revision, false);
    this.checkOpen();
    const key = Buffer.from(COMPACT_REV_KEY);
    // Record the point first (a transaction on the key's mod revision, so two replicas cannot both
    // move it), then compact: compactedRevision() never names a point etcd has not reached for long.
    for (let attempt = 0; attempt < 5; attempt++) {
      const cur = await this.call(undefined, () => this.kv.range({ key }));
      const current = Number(cur.header.revision);
      const recorded = Number(cur.kvs[0]?.value.toString() ?? 0) || 0;
      const compacted = Math.max(recorded, this.knownCompacted);
      if (revision > current) throw new StorageError('FutureRevision', `revision ${revision} is ahead of ${current}`, { revision: current });
      if (revision <= compacted) {
        throw new StorageError('Compacted', `revision ${revision} is already compacted (${compacted})`, { revision: current, compactedRevision: compacted });
      }
      const mod = Number(cur.kvs[0]?.mod_revision ?? 0);
      const claim = await this.call(undefined, () =>
        this.kv.txn({
          compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: mod }],
          success: [{ request_put: { key, value: Buffer.from(String(revision)) } }],
        }),
      );
      if (!claim.succeeded) continue;
      try {
        await this.call(undefined, () => this.kv.compact({ revision }));
      } catch (e) {
        if (!isStorageError(e, 'Compacted')) throw e;
      }
      this.knownCompacted = Math.max(this.knownCompacted, revision);
      return;
    }
    throw new StorageError('Unavailable', 'etcd compaction: compact_rev_key kept changing');
  }

  /** The etcd client's KV service this store calls (the benchmark compares raw calls through it). */
  rawKv(): KVClient {
    return this.kv;
  }

  /**
   * The KV and Lease services and the key prefix, for the leader elector
   * (runtime/controller/leader-election-etcd.ts), which keeps its leases beside the registry's keys.
   */
  coordination(): { kv: KVClient; lease: LeaseClient; prefix: string } {
    this.checkOpen();
    return { kv: this.kv, lease: this.client.leaseClient, prefix: this.prefix };
  }

  /** The periodic compactor, for tests. */
  periodicCompactor(): EtcdCompactor | undefined {
    return this.compactor;
  }

  // ---- watch ------------------------------------------------------------------------------------------

  async watch(prefix: string, fromRevision: Revision, onEvent: WatchListener, onError?: WatchErrorListener): Promise<WatchHandle> {
    validatePrefix(prefix);
    validateRevision('fromRevision', fromRevision);
    const compacted = await this.compactedRevision();
    if (fromRevision < compacted) throw this.tooOld(fromRevision, compacted);
    const start = this.etcdKey(prefix);
    const w: EtcdWatch = { cancel: () => undefined, onError, done: false };
    let progressRevision = fromRevision;
    const end = (err: StorageError | undefined): void => {
      if (w.done) return;
      w.done = true;
      this.watches.delete(w);
      w.cancel();
      if (err) w.onError?.(err);
    };
    try {
      w.cancel = await this.watchStream.create(
        { key: start, range_end: bytePrefixEnd(start), start_revision: fromRevision + 1, prev_kv: true, progress_notify: true },
        {
          onResponse: (res) => {
            for (const ev of res.events) {
              if (w.done) return;
              const event = this.toWatchEvent(ev.type, ev.kv, ev.prev_kv);
              progressRevision = event.modRevision;
              onEvent(event);
            }
            // an empty response is a progress notification: nothing more under the prefix up to its revision
            if (res.events.length === 0) progressRevision = Math.max(progressRevision, Number(res.header.revision));
          },
          // etcd cancels a watch that fell behind a compaction
          onCancel: (res) => void this.watchFailure(res, prefix, progressRevision).then((err) => end(err)),
          // The interface ends the watch where etcd3 would resume it inside the client: the client
          // resumes from the last revision it received, as after any closed watch.
          onBroken: (err) => end(this.closed ? new StorageError('Closed', 'storage is closed') : (toStorageError(err, prefix) as StorageError)),
        },
      );
    } catch (e) {
      throw await this.watchFailure(e, prefix, fromRevision);
    }
    if (this.closed) {
      end(undefined);
      throw new StorageError('Closed', 'storage is closed');
    }
    this.watches.add(w);
    const handle: EtcdWatchHandle = {
      prefix,
      get progressRevision() {
        return progressRevision;
      },
      cancel: () => end(undefined),
    };
    return handle;
  }

  // ---- state --------------------------------------------------------------------------------------------

  stats(): StorageStats {
    return { commits: this.writes, writes: this.writes, replayFromRing: 0, replayFromLog: 0, watchers: this.watches.size };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.compactor?.stop();
    const closed = new StorageError('Closed', 'storage is closed');
    for (const w of [...this.watches]) {
      w.done = true;
      this.watches.delete(w);
      w.onError?.(closed);
    }
    this.watchStream.close();
    this.client.close();
  }

  // ---- helpers --------------------------------------------------------------------------------------------

  private etcdKey(key: string): Buffer {
    return Buffer.from(this.prefix + key);
  }

  private toKeyValue(kv: IKeyValue): KeyValue {
    return {
      key: kv.key.toString().slice(this.prefix.length),
      value: kv.value.toString(),
      createRevision: Number(kv.create_revision),
      modRevision: Number(kv.mod_revision),
    };
  }

  private firstKv(op: IResponseOp | undefined): KeyValue | undefined {
    const kv = op?.response_range?.kvs?.[0];
    return kv ? this.toKeyValue(kv) : undefined;
  }

  private toWatchEvent(type: 'Put' | 'Delete', kv: IKeyValue, prev: IKeyValue | undefined): WatchEvent {
    const key = kv.key.toString().slice(this.prefix.length);
    const prevModRevision = prev ? Number(prev.mod_revision) : 0;
    if (type === 'Delete') {
      return {
        type: 'delete',
        key,
        value: undefined,
        prevValue: prev?.value.toString(),
        modRevision: Number(kv.mod_revision),
        createRevision: prev ? Number(prev.create_revision) : 0,
        prevModRevision,
        isCreate: false,
      };
    }
    const isCreate = kv.version === '1';
    return {
      type: 'put',
      key,
      value: kv.value.toString(),
      // a create's prev_kv would be the previous incarnation's tombstone: etcd sends none
      prevValue: isCreate ? undefined : prev?.value.toString(),
      modRevision: Number(kv.mod_revision),
      createRevision: Number(kv.create_revision),
      prevModRevision: isCreate ? 0 : prevModRevision,
      isCreate,
    };
  }

  private casFailure(key: string, expected: Revision, op: IResponseOp | undefined, revision: Revision): StorageError {
    const current = this.firstKv(op);
    if (!current) return new StorageError('NotFound', `key ${key} not found`, { key, revision });
    return new StorageError('Conflict', `key ${key} has revision ${current.modRevision}, not ${expected}`, { key, revision, current });
  }

  private readRevision(requested: Revision | undefined): Revision {
    this.checkOpen();
    if (requested === undefined || requested === 0) return 0;
    validateRevision('revision', requested);
    return requested;
  }

  /** A read at `at` (0: latest), with etcd's Compacted and FutureRevision completed by the revisions involved. */
  private async read<T>(key: string, at: Revision, fn: () => Promise<T>): Promise<T> {
    try {
      return await this.call(key, fn);
    } catch (e) {
      if (isStorageError(e, 'Compacted')) {
        const compacted = Math.max(await this.compactedRevision().catch(() => 0), at + 1);
        this.knownCompacted = Math.max(this.knownCompacted, compacted);
        throw new StorageError('Compacted', `revision ${at} has been compacted (${compacted})`, { key, compactedRevision: compacted });
      }
      if (isStorageError(e, 'FutureRevision')) {
        const current = await this.currentRevision().catch(() => 0);
        throw new StorageError('FutureRevision', `Too large resource version: ${at}, current: ${current}`, { key, revision: current });
      }
      throw e;
    }
  }

  /** Runs one etcd call, mapping its failure to the interface's errors. */
  private async call<T>(key: string | undefined, fn: () => Promise<T>): Promise<T> {
    this.checkOpen();
    try {
      return await fn();
    } catch (e) {
      if (this.closed) throw new StorageError('Closed', 'storage is closed');
      throw toStorageError(e, key);
    }
  }

  private tooOld(from: Revision, compacted: Revision): StorageError {
    return new StorageError('Compacted', `too old resource version: ${from} (${compacted})`, { compactedRevision: compacted });
  }

  /**
   * Why a watch was refused or ended by etcd: a cancel response carrying compact_revision (the watch
   * fell behind a compaction), another cancel (its reason), or the stream's failure.
   */
  private async watchFailure(e: unknown, prefix: string, from: Revision): Promise<StorageError> {
    if (this.closed) return new StorageError('Closed', 'storage is closed');
    if (isWatchResponse(e)) {
      const etcdPoint = Number(e.compact_revision);
      if (etcdPoint > 0) {
        // etcd's compaction point (reads at it still work, below it fail): this interface's too
        const compacted = Math.max(await this.compactedRevision().catch(() => 0), etcdPoint);
        this.knownCompacted = Math.max(this.knownCompacted, compacted);
        return this.tooOld(from, compacted);
      }
      return new StorageError('Unavailable', `etcd cancelled the watch: ${e.cancel_reason || 'no reason given'}`, { key: prefix });
    }
    const mapped = toStorageError(e, prefix);
    if (isStorageError(mapped)) return mapped;
    return new StorageError('Unavailable', `etcd watch failed: ${e instanceof Error ? e.message : String(e)}`, { key: prefix });
  }

  private checkOpen(): void {
    if (this.closed) throw new StorageError('Closed', 'storage is closed');
  }
}

function isWatchResponse(e: unknown): e is IWatchResponse {
  return typeof e === 'object' && e !== null && 'watch_id' in e && 'canceled' in e;
}

/** The exclusive end of the byte range of keys starting with `prefix` (etcd's prefix end). */
export function bytePrefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] < 0xff) {
      end[i]++;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]);
}

/** A failure before the call left this process: no connection to the member, or its breaker open. */
function neverSent(e: Error): boolean {
  return /No connection established|ECONNREFUSED|Name resolution failed|circuit breaker is open|BrokenCircuit/i.test(`${e.constructor.name} ${e.message}`);
}

/**
 * The etcd3 client's options: a call deadline on every unary call; a circuit breaker per endpoint so
 * that a dead member is skipped; retries only across endpoints (never against the one that failed),
 * so a write is not sent twice to one member.
 */
export function etcdClientOptions(options: EtcdStorageOptions): IOptions {
  const timeout = options.requestTimeoutMs ?? 10_000;
  const hosts = [...options.endpoints];
  const tls = options.tls && (options.tls.ca || options.tls.cert || options.tls.key) ? options.tls : undefined;
  const secure = hosts.some((h) => h.startsWith('https://'));
  return {
    hosts,
    // without a CA file, https endpoints are verified against the system's roots
    credentials: secure && tls ? { rootCertificate: tls.ca as Buffer, privateKey: tls.key, certChain: tls.cert } : undefined,
    dialTimeout: timeout,
    defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + timeout }),
    faultHandling: {
      host: () => circuitBreaker(handleWhen((e) => classifyEtcdError(e) === 'Unavailable'), { halfOpenAfter: 1000, breaker: new ConsecutiveBreaker(3) }),
      // only failures where the call cannot have reached etcd: a timed-out write may have been applied
      global: hosts.length > 1 ? retry(handleWhen(neverSent), { maxAttempts: hosts.length - 1 }) : noop,
    },
    grpcOptions: {
      'grpc.max_receive_message_length': 64 * 1024 * 1024,
      // etcd is reached directly: an http_proxy meant for the outside world must not carry it
      'grpc.enable_http_proxy': 0,
      // a member that stops answering (hung, or a network that drops packets) ends the watches within
      // 15 s instead of never; etcd accepts pings every 5 s or slower while a stream is open
      'grpc.keepalive_time_ms': 10_000,
      'grpc.keepalive_timeout_ms': 5_000,
    },
  };
}
