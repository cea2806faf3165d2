// The storage contract: etcd's semantics behind a narrow interface, so that the
// memory, sqlite and (later) etcd backends are interchangeable for the registry.
//
// Mapping to etcd v3 (for the etcd backend to come):
//   revision            = header.revision / kv.mod_revision (one global counter)
//   create(k, v)        = Txn(If create_revision(k) == 0, Then Put(k, v)); on failure Range(k, at that revision)
//   update(k, v, rev)   = Txn(If mod_revision(k) == rev, Then Put(k, v), Else Get(k))
//   delete(k, rev?)     = Txn(If mod_revision(k) == rev, Then DeleteRange(k, prev_kv), Else Get(k))
//   get(k, {revision})  = Range(k, revision)
//   list(p, {...})      = Range([max(p, startKey), prefixEnd(p)), revision, limit) + count
//   watch(p, from, cb)  = Watch(range prefix p, start_revision = from + 1, prev_kv)
//   compact(rev)        = Compact(rev); compactedRevision() is remembered in a meta key.

/** The global revision. Safe as a JS number up to 2^53; rendered as a decimal string for resourceVersion. */
export type Revision = number;

/** One live key at some revision. `value` is the serialized object (JSON text). */
export interface KeyValue {
  readonly key: string;
  readonly value: string;
  /** Revision of the write that created this incarnation of the key. */
  readonly createRevision: Revision;
  /** Revision of the last write to the key (the object's resourceVersion). */
  readonly modRevision: Revision;
}

export interface GetOptions {
  /** Read as of this revision; undefined or 0 means the latest. */
  readonly revision?: Revision;
}

export interface GetResult {
  /** Undefined when the key does not exist at that revision. */
  readonly kv: KeyValue | undefined;
  /** The revision the read was served at (the snapshot revision). */
  readonly revision: Revision;
}

export interface ListOptions {
  /** Snapshot revision; undefined or 0 means the latest. Pass the first page's `revision` to continue a list. */
  readonly revision?: Revision;
  /** Inclusive start key inside the prefix (a continue token resumes at `lastKey + "\u0000"`, see `keyAfter`). */
  readonly startKey?: string;
  /** At most this many items; undefined or 0 means no limit. */
  readonly limit?: number;
}

export interface ListResult {
  /** Live keys in byte-wise (UTF-8, i.e. code point) key order. */
  readonly items: KeyValue[];
  /** The snapshot revision every page of this list must use. */
  readonly revision: Revision;
  /** True when keys remain after the last returned item. */
  readonly more: boolean;
  /** How many keys remain after this page (0 when `more` is false). */
  readonly remaining: number;
}

export interface DeleteResult {
  /** The revision of the delete (what a DELETED watch event carries). */
  readonly revision: Revision;
  /** The last state before the delete. */
  readonly prev: KeyValue;
}

export type WatchEventType = 'put' | 'delete';

/** One change. Events reach a watcher strictly in revision order, each exactly once. */
export interface WatchEvent {
  readonly type: WatchEventType;
  readonly key: string;
  /** The new value for a put; undefined for a delete (the last state is `prevValue`). */
  readonly value: string | undefined;
  /** The value before this change; undefined for a create. */
  readonly prevValue: string | undefined;
  /** The revision of this change (for a delete: the revision of the delete). */
  readonly modRevision: Revision;
  /** Create revision of the incarnation this event belongs to. */
  readonly createRevision: Revision;
  /** Mod revision of the previous state of the key; 0 for a create. */
  readonly prevModRevision: Revision;
  /** True when this put created the key (absent before). */
  readonly isCreate: boolean;
}

export type WatchListener = (event: WatchEvent) => void;
/** Called at most once; afterwards the watch delivers nothing. Codes: Compacted (fell behind compaction), Closed. */
export type WatchErrorListener = (error: StorageError) => void;

export interface WatchHandle {
  readonly prefix: string;
  /**
   * True once the watch has caught up and receives each committed change synchronously, before
   * the write's promise settles (backends built on WatchHub); undefined when the backend cannot tell.
   */
  readonly live?: boolean;
  /**
   * Every change under the prefix up to this revision has been delivered (etcd's progress
   * notifications: a quiet watch's bookmark can move past other keys' writes); undefined when the
   * backend reports no progress.
   */
  readonly progressRevision?: Revision;
  /** Stop delivering events. Idempotent. */
  cancel(): void;
}

export interface StorageStats {
  /** Write transactions committed (for sqlite: one fsync each). */
  readonly commits: number;
  /** Successful writes (revisions) committed. */
  readonly writes: number;
  /** Events answered from the in-process ring vs. from the log when catching watchers up. */
  readonly replayFromRing: number;
  readonly replayFromLog: number;
  /** Watchers currently registered. */
  readonly watchers: number;
}

export interface Storage {
  readonly kind: string;
  /** The bound on one write's key and value (etcd's --max-request-bytes) where this process knows it; 0 or undefined: none known. */
  readonly maxRequestBytes?: number;
  /** Create if absent. Resolves to the new revision; rejects with KeyExists (error.current holds the live value). */
  create(key: string, value: string): Promise<Revision>;
  /** Compare-and-swap on the key's mod revision. Rejects with NotFound or Conflict (error.current holds the live value). */
  update(key: string, value: string, expectedRevision: Revision): Promise<Revision>;
  /** Delete, optionally only if the key's mod revision equals expectedRevision. Rejects with NotFound or Conflict. */
  delete(key: string, expectedRevision?: Revision): Promise<DeleteResult>;
  /** Read one key. Rejects with Compacted (revision below the compaction point) or FutureRevision. */
  get(key: string, options?: GetOptions): Promise<GetResult>;
  /** Range over a key prefix at one snapshot revision. Rejects with Compacted or FutureRevision. */
  list(prefix: string, options?: ListOptions): Promise<ListResult>;
  /**
   * Deliver every change under `prefix` with modRevision > fromRevision, in revision order, with no
   * gap and no repeat: first a replay of history, then live changes. Rejects with Compacted when
   * fromRevision < compactedRevision(). A fromRevision ahead of the store is allowed (etcd semantics):
   * events simply start when the store gets there.
   */
  watch(prefix: string, fromRevision: Revision, onEvent: WatchListener, onError?: WatchErrorListener): Promise<WatchHandle>;
  /** Discard history before `revision`. Afterwards reads below it and watches from below it fail with Compacted. */
  compact(revision: Revision): Promise<void>;
  currentRevision(): Promise<Revision>;
  compactedRevision(): Promise<Revision>;
  /** Counters for tests and metrics. */
  stats(): StorageStats;
  /** Flush pending writes, end every watch with a Closed error, release resources. Idempotent. */
  close(): Promise<void>;
}

/** Unavailable: a remote store (etcd) cannot be reached or did not answer in time; TooLarge: over the store's request limit. */
export type StorageErrorCode = 'KeyExists' | 'Conflict' | 'NotFound' | 'Compacted' | 'FutureRevision' | 'Closed' | 'Invalid' | 'Unavailable' | 'TooLarge';

export interface StorageErrorDetails {
  readonly key?: string;
  /** The store's current revision when the error was raised (where relevant). */
  readonly revision?: Revision;
  /** For Compacted: the compaction point. */
  readonly compactedRevision?: Revision;
  /** For KeyExists and Conflict: the live key, so the caller needs no second read. */
  readonly current?: KeyValue;
}

export class StorageError extends Error {
  readonly code: StorageErrorCode;
  readonly key: string | undefined;
  readonly revision: Revision | undefined;
  readonly compactedRevision: Revision | undefined;
  readonly current: KeyValue | undefined;

  constructor(code: StorageErrorCode, message: string, details: StorageErrorDetails = {}) {
    super(message);
    this.name = 'StorageError';
    this.code = code;
    this.key = details.key;
    this.revision = details.revision;
    this.compactedRevision = details.compactedRevision;
    this.current = details.current;
  }
}

export function isStorageError(e: unknown, code?: StorageErrorCode): e is StorageError {
  return e instanceof StorageError && (code === undefined || e.code === code);
}

// ---------------------------------------------------------------------------------------------
// Key helpers shared by the backends (and useful to the registry).

/** `/<group>/<resource>/<namespace>/<name>`; core group is `core`; cluster-scoped resources omit the namespace. */
export function objectKey(group: string, resource: string, namespace: string | undefined, name: string): string {
  const g = group === '' ? 'core' : group;
  return namespace ? `/${g}/${resource}/${namespace}/${name}` : `/${g}/${resource}/${name}`;
}

/** The prefix for a list or watch: all namespaces when namespace is undefined. Always ends in '/'. */
export function objectPrefix(group: string, resource: string, namespace?: string): string {
  const g = group === '' ? 'core' : group;
  return namespace ? `/${g}/${resource}/${namespace}/` : `/${g}/${resource}/`;
}

/** The smallest key strictly greater than `key` (what a continue token resumes at). */
export function keyAfter(key: string): string {
  return key + '\u0000';
}

/** A code unit from U+D800 on: only where both keys have one can UTF-16 order differ from UTF-8 order. */
const HIGH_CODE_UNIT = /[\ud800-\uffff]/;

/**
 * Byte-wise comparison of the UTF-8 encodings, without encoding: UTF-16 code unit order equals UTF-8
 * order except that surrogates (astral code points) must sort after U+E000..U+FFFF. Keys without a
 * code unit from U+D800 (all usual keys) compare natively, about 5x faster than the loop.
 */
export function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  if (!HIGH_CODE_UNIT.test(a) || !HIGH_CODE_UNIT.test(b)) return a < b ? -1 : 1;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
        y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
      }
      return x - y;
    }
  }
  return a.length - b.length;
}

/** The first index of a sorted (compareKeys) array whose key is not below `key`. */
export function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareKeys(keys[mid], key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The exclusive end of the prefix range (etcd's prefix end), or undefined when unbounded. */
export function prefixEnd(prefix: string): string | undefined {
  let p = prefix;
  while (p.length > 0) {
    const last = p.codePointAt(p.length - 1 - (isLowSurrogateAt(p, p.length - 1) ? 1 : 0)) as number;
    const width = last > 0xffff ? 2 : 1;
    const head = p.slice(0, p.length - width);
    if (last < 0x10ffff) {
      let next = last + 1;
      if (next >= 0xd800 && next <= 0xdfff) next = 0xe000;
      return head + String.fromCodePoint(next);
    }
    p = head;
  }
  return undefined;
}

function isLowSurrogateAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c < 0xdc00 || c > 0xdfff || i === 0) return false;
  const h = s.charCodeAt(i - 1);
  return h >= 0xd800 && h <= 0xdbff;
}

export function validateKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || key.length < 2 || key[0] !== '/' || key.endsWith('/') || key.includes('\u0000')) {
    throw new StorageError('Invalid', `invalid key ${JSON.stringify(key)}: must start with '/', not end with '/', and hold no NUL`);
  }
}

export function validatePrefix(prefix: unknown): asserts prefix is string {
  if (typeof prefix !== 'string' || prefix.length === 0 || prefix[0] !== '/' || prefix.includes('\u0000')) {
    throw new StorageError('Invalid', `invalid prefix ${JSON.stringify(prefix)}: must start with '/' and hold no NUL`);
  }
}

export function validateValue(value: unknown): asserts value is string {
  if (typeof value !== 'string') throw new StorageError('Invalid', 'value must be a string');
}

export function validateRevision(name: string, rev: unknown, allowZero = true): asserts rev is number {
  if (typeof rev !== 'number' || !Number.isSafeInteger(rev) || rev < 0 || (!allowZero && rev === 0)) {
    throw new StorageError('Invalid', `${name} must be a ${allowZero ? 'non-negative' : 'positive'} integer, got ${String(rev)}`);
  }
}
