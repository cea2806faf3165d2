// The object-storage layer of one resource, between the registry's Store and a storage backend:
// the counterpart of upstream's storage/etcd3/store.go. It owns keys, the codec, the conversion of
// custom resources between their served and storage versions, the one guaranteedUpdate with its
// conflict retry, and the mapping of storage errors to ApiErrors. It knows nothing of validation,
// admission or HTTP.

import { ApiError, type ResourceRef } from '../errors/api-error.ts';
import { deepEqual, meta, metaOf, type Obj } from '../api/object.ts';
import { isStorageError, objectKey, objectPrefix, type KeyValue, type Storage, type WatchEvent } from '../storage/interface.ts';
import { decodeStored, encodeForStorage, withoutResourceVersion } from './codec.ts';
import { API_VERSION_ONLY, convertObjects, type ObjectConverter } from './conversion.ts';
import { fromStorageError } from './storage-errors.ts';
import { refuseOversized } from './stored-size.ts';
import { jsonText } from '../json/stringify.ts';

export interface ObjectStorageConfig {
  group: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  /** The apiVersion objects are served at (the Store's version). */
  apiVersion: string;
  /** Custom resources: the apiVersion objects are stored at (the CRD's storage version). */
  storageApiVersion?: string;
  /** Custom resources: the CRD's converter (without one, conversion None: only apiVersion changes). */
  converter?: ObjectConverter;
  /** How long a read of a future resourceVersion waits for the storage to catch up (upstream ~3 s). */
  futureRevisionWaitMs?: number;
}

/** An object as read: at the served version, stamped with its revision. */
export interface StoredObject {
  obj: Obj;
  rev: number;
  /** Stored at another apiVersion than the storage version (a write must rewrite it even when unchanged). */
  stale: boolean;
}

/** What a tryUpdate decides: the object to write, or (`remove`) to delete the stored one at the revision read. */
export interface UpdateDecision {
  obj: Obj;
  remove?: boolean;
}

/** Computes the next state from the current one (undefined: absent, only with allowCreate). Throws to abort. */
export type TryUpdate = (current: StoredObject | undefined) => Promise<UpdateDecision>;

export interface GuaranteedUpdateOptions {
  /** tryUpdate is called with undefined when the object does not exist, and its answer is created. */
  allowCreate?: boolean;
  /** Everything but the write. */
  dryRun?: boolean;
}

export interface GuaranteedUpdateResult {
  /** The answer: what was stored (converted back to the served version), or the unchanged current object. */
  obj: Obj;
  created: boolean;
}

export interface ListPage {
  items: { key: string; obj: Obj }[];
  revision: number;
  more: boolean;
  remaining: number;
}

/** A watch event decoded once for every watcher of this resource (objects frozen, with kind and apiVersion). */
export interface DecodedEvent {
  type: WatchEvent['type'];
  revision: number;
  cur: Obj | undefined;
  prev: Obj | undefined;
}

export interface ObjectWatch {
  cancel(): void;
  /** Runs `fn` once every event received so far has been delivered (custom resources convert asynchronously). */
  afterPending(fn: () => void): void;
  /** The backend's progress (etcd's progress notifications): how far a quiet watch has come. */
  readonly progressRevision: number;
}

/** A concurrent writer moved the object between the read and the write: read again (upstream retries without limit; this bound stops a livelock). */
const MAX_UPDATE_ATTEMPTS = 16;

/** A failure on a watch stream: upstream wraps errors that are no API status as InternalError. */
export function watchError(e: unknown): ApiError {
  return e instanceof ApiError && e.reason !== '' ? e : ApiError.internal(e);
}

export class ObjectStorage {
  readonly resource: ResourceRef;
  private readonly converter: ObjectConverter | undefined;
  private readonly storageApiVersion: string;

  constructor(
    readonly storage: Storage,
    private readonly config: ObjectStorageConfig,
  ) {
    this.resource = { group: config.group, plural: config.plural };
    this.converter = config.converter ?? (config.storageApiVersion !== undefined ? API_VERSION_ONLY : undefined);
    this.storageApiVersion = config.storageApiVersion ?? config.apiVersion;
  }

  /** True for custom resources, whose objects are converted between versions on every read and write. */
  get converts(): boolean {
    return this.converter !== undefined;
  }

  key(namespace: string | undefined, name: string): string {
    return objectKey(this.config.group, this.config.plural, this.config.namespaced ? namespace : undefined, name);
  }

  prefix(namespace: string | undefined): string {
    return objectPrefix(this.config.group, this.config.plural, this.config.namespaced ? namespace : undefined);
  }

  /** A stored value as it was written (no conversion), stamped with its revision. */
  decode(value: string, revision: number): Obj {
    return decodeStored(value, revision);
  }

  // ---------------------------------------------------------------- revisions

  /** The storage's current revision; a storage failure (etcd unreachable) as its Status (503). */
  async currentRevision(): Promise<number> {
    try {
      return await this.storage.currentRevision();
    } catch (e) {
      throw fromStorageError(e, { resource: this.resource, name: '', op: 'get' });
    }
  }

  /** Waits until the storage reaches `rv`; 504 `Too large resource version` after the wait (upstream ~3 s). */
  async waitForRevision(rv: number): Promise<void> {
    const deadline = Date.now() + (this.config.futureRevisionWaitMs ?? 3000);
    for (;;) {
      const cur = await this.currentRevision();
      if (cur >= rv) return;
      if (Date.now() >= deadline) {
        throw ApiError.timeout(`Too large resource version: ${rv}, current: ${cur}`, 1, [
          { reason: 'ResourceVersionTooLarge', message: 'Too large resource version' },
        ]);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  // ---------------------------------------------------------------- reads

  /** The stored key-value of one object (undefined when absent). */
  async getRaw(namespace: string | undefined, name: string, requestedRevision?: number): Promise<KeyValue | undefined> {
    try {
      return (await this.storage.get(this.key(namespace, name))).kv;
    } catch (e) {
      throw fromStorageError(e, { resource: this.resource, name, op: 'get', requestedRevision });
    }
  }

  /** One object at the served version, or undefined. */
  async get(namespace: string | undefined, name: string, requestedRevision?: number): Promise<StoredObject | undefined> {
    const kv = await this.getRaw(namespace, name, requestedRevision);
    if (!kv) return undefined;
    if (!this.converter) return { obj: decodeStored(kv.value, kv.modRevision), rev: kv.modRevision, stale: false };
    const raw = JSON.parse(kv.value) as Obj;
    const stale = raw.apiVersion !== undefined && raw.apiVersion !== this.storageApiVersion;
    const obj = (await this.toServed([raw]))[0];
    meta(obj).resourceVersion = String(kv.modRevision);
    return { obj, rev: kv.modRevision, stale };
  }

  /** One page of a range at the served version (custom resources converted in one call). */
  async listPage(prefix: string, opts: { revision?: number; startKey?: string; limit?: number }): Promise<ListPage> {
    const res = await this.readRange(prefix, opts);
    return { ...res, items: await this.decodeRange(res.items) };
  }

  /** One page of a range as stored (storage failures as their Status). */
  async readRange(prefix: string, opts: { revision?: number; startKey?: string; limit?: number }): Promise<{ items: KeyValue[]; revision: number; more: boolean; remaining: number }> {
    try {
      return await this.storage.list(prefix, opts);
    } catch (e) {
      throw fromStorageError(e, { resource: this.resource, name: '', op: 'list', requestedRevision: opts.revision });
    }
  }

  /** Stored key-values at the served version (a conversion failure as the converter's ApiError). */
  async decodeRange(kvs: readonly KeyValue[]): Promise<{ key: string; obj: Obj }[]> {
    const objs = this.converter ? await this.decodeConverted(kvs, true) : kvs.map((kv) => decodeStored(kv.value, kv.modRevision));
    return kvs.map((kv, i) => ({ key: kv.key, obj: objs[i] }));
  }

  // ---------------------------------------------------------------- writes

  /**
   * 413 (the storage's answer to a write over its bound) when `obj` is, without its managedFields,
   * already over the storage's bound, before a write's costly steps. Not for custom resources
   * stored at another version: their conversion may change the size.
   */
  refuseOversized(obj: Obj, bodyBytes: number | undefined): void {
    if (this.converter !== undefined && this.converter !== API_VERSION_ONLY && this.storageApiVersion !== this.config.apiVersion) return;
    refuseOversized(obj, this.storage.maxRequestBytes, bodyBytes);
  }

  /**
   * Creates `obj` under its name. AlreadyExists (with the `deleting` detail when the existing
   * object is being deleted) when the key is taken. Dry run: encoded and decoded, not written.
   */
  async create(namespace: string | undefined, obj: Obj, opts: { dryRun?: boolean } = {}): Promise<Obj> {
    const m = meta(obj);
    const name = m.name as string;
    const stored = this.converter ? await this.toStorage(obj) : undefined;
    if (opts.dryRun) {
      m.resourceVersion = '';
      // a dry run goes through the storage codec too (upstream's dry-run storage encodes and decodes)
      return stored ? this.fromStorage(stored, obj) : obj;
    }
    try {
      const rev = await this.storage.create(this.key(namespace, name), stored ? jsonText(stored) : this.encode(obj));
      m.resourceVersion = String(rev);
      return stored ? await this.fromStorage(stored, obj) : obj;
    } catch (e) {
      if (isStorageError(e, 'KeyExists')) {
        const cur = e.current ? (JSON.parse(e.current.value) as Obj) : undefined;
        throw ApiError.alreadyExists(this.resource, name, { deleting: !!(cur && metaOf(cur).deletionTimestamp) });
      }
      throw fromStorageError(e, { resource: this.resource, name, op: 'write' });
    }
  }

  /**
   * Reads the object, asks `tryUpdate` for its next state and writes it on the revision read; when
   * another writer got in between, reads again and asks again (upstream's GuaranteedUpdate). An
   * answer equal to the current object is not written (unless stored at an older version).
   */
  async guaranteedUpdate(namespace: string | undefined, name: string, tryUpdate: TryUpdate, opts: GuaranteedUpdateOptions = {}): Promise<GuaranteedUpdateResult> {
    const key = this.key(namespace, name);
    for (let attempt = 1; ; attempt++) {
      const current = await this.get(namespace, name);
      if (!current && !opts.allowCreate) throw ApiError.notFound(this.resource, name);
      const next = await tryUpdate(current);
      const m = meta(next.obj);
      try {
        if (!current) return { obj: await this.create(namespace, next.obj, opts), created: true };
        if (next.remove) {
          if (!opts.dryRun) m.resourceVersion = String((await this.storage.delete(key, current.rev)).revision);
          return { obj: next.obj, created: false };
        }
        if (!current.stale && deepEqual(withoutResourceVersion(next.obj), withoutResourceVersion(current.obj))) return { obj: current.obj, created: false };
        const stored = this.converter ? await this.toStorage(next.obj) : undefined;
        if (opts.dryRun) return { obj: stored ? await this.fromStorage(stored, next.obj) : next.obj, created: false };
        m.resourceVersion = String(await this.storage.update(key, stored ? jsonText(stored) : this.encode(next.obj), current.rev));
        return { obj: stored ? await this.fromStorage(stored, next.obj) : next.obj, created: false };
      } catch (e) {
        const raced = isStorageError(e, 'Conflict') || isStorageError(e, 'NotFound') || (e instanceof ApiError && e.reason === 'AlreadyExists' && !current);
        if (raced && attempt < MAX_UPDATE_ATTEMPTS) continue;
        throw fromStorageError(e, { resource: this.resource, name, op: 'write' });
      }
    }
  }

  /** Compare-and-swap of `obj` (its name and namespace) on revision `rev`, through the codec; no retry. */
  async writeAt(obj: Obj, rev: number): Promise<Obj> {
    const m = meta(obj);
    const name = m.name as string;
    try {
      const text = this.converter ? jsonText(await this.toStorage(obj)) : this.encode(obj);
      m.resourceVersion = String(await this.storage.update(this.key(m.namespace, name), text, rev));
      return obj;
    } catch (e) {
      throw fromStorageError(e, { resource: this.resource, name, op: 'write' });
    }
  }

  /** Deletes the object stored at revision `rev`. */
  async deleteAt(namespace: string | undefined, name: string, rev: number): Promise<number> {
    try {
      return (await this.storage.delete(this.key(namespace, name), rev)).revision;
    } catch (e) {
      throw fromStorageError(e, { resource: this.resource, name, op: 'write' });
    }
  }

  /**
   * The text and object of the last write of a built-in object: its watch event carries that very
   * text, and decoding it again is the largest single cost of a write of a large object, so the
   * event reuses the object (the answer's; nothing changes it after the write) instead.
   */
  private lastWrite: { text: string; obj: Obj } | undefined;

  /** `obj` as stored (built-ins only; custom resources are converted first), remembered for its watch event. */
  private encode(obj: Obj): string {
    const text = encodeForStorage(obj);
    this.lastWrite = { text, obj };
    return text;
  }

  // ---------------------------------------------------------------- watch

  /**
   * Live events reach every watcher as the same WatchEvent object: each is decoded once (new and
   * previous state, with kind/apiVersion and the event's revision) and shared, read-only, by all
   * watchers, so that the HTTP layer can also serialize it once per format.
   */
  private readonly decodedEvents = new WeakMap<WatchEvent, DecodedEvent>();
  /** The same for custom resources: converted once per event for all watchers of this version. */
  private readonly convertedEvents = new WeakMap<WatchEvent, Promise<DecodedEvent>>();

  private typed(o: Obj): Obj {
    const { kind: _k, apiVersion: _a, ...rest } = o;
    return Object.freeze({ kind: this.config.kind, apiVersion: this.config.apiVersion, ...rest });
  }

  private decodeEvent(ev: WatchEvent): DecodedEvent {
    let d = this.decodedEvents.get(ev);
    if (!d) {
      const typed = (value: string | undefined): Obj | undefined => (value === undefined ? undefined : this.typed(this.decodeWritten(value, ev.modRevision)));
      d = { type: ev.type, revision: ev.modRevision, cur: typed(ev.value), prev: typed(ev.prevValue) };
      this.decodedEvents.set(ev, d);
    }
    return d;
  }

  /** A stored value at `revision`: the last write's object when it is that write's text (a copy of its top and metadata), else parsed. */
  private decodeWritten(value: string, revision: number): Obj {
    const last = this.lastWrite;
    if (last === undefined || last.text !== value) return decodeStored(value, revision);
    this.lastWrite = undefined;
    return { ...last.obj, metadata: { ...(last.obj.metadata as Obj), resourceVersion: String(revision) } };
  }

  private decodeEventConverted(ev: WatchEvent): Promise<DecodedEvent> {
    let d = this.convertedEvents.get(ev);
    if (!d) {
      // each state on its own, as upstream's watch decodes them
      const typed = async (value: string | undefined): Promise<Obj | undefined> =>
        value === undefined ? undefined : this.typed((await this.decodeConverted([{ value, modRevision: ev.modRevision }]))[0]);
      d = Promise.all([typed(ev.value), typed(ev.prevValue)]).then(([cur, prev]) => ({ type: ev.type, revision: ev.modRevision, cur, prev }));
      // handled by each watcher's chain later; this keeps an early failure from being "unhandled"
      d.catch(() => undefined);
      this.convertedEvents.set(ev, d);
    }
    return d;
  }

  /**
   * Watches `prefix` from revision `from`: `onEvent` gets every change in order (custom resources
   * converted first); `onEnd` once, with the ApiError that ended it (410 when `from` is compacted
   * away, the conversion failure) or undefined when the storage closed the stream. A compacted
   * start may also be reported through onEnd before this resolves.
   */
  async watch(prefix: string, from: number, onEvent: (ev: DecodedEvent) => void, onEnd: (err: ApiError | undefined) => void): Promise<ObjectWatch> {
    let ended = false;
    const end = (err: ApiError | undefined): void => {
      if (ended) return;
      ended = true;
      onEnd(err);
    };
    // custom resources convert asynchronously: one chain per watcher keeps the events in order
    let delivered: Promise<void> = Promise.resolve();
    const listener = (ev: WatchEvent): void => {
      if (ended) return;
      if (!this.converter) {
        onEvent(this.decodeEvent(ev));
        return;
      }
      const decoded = this.decodeEventConverted(ev);
      delivered = delivered.then(async () => {
        if (ended) return;
        try {
          const d = await decoded;
          if (!ended) onEvent(d);
        } catch (e) {
          // upstream's watch sends the conversion failure as an ERROR event and ends the stream
          handle?.cancel();
          end(watchError(e));
        }
      });
    };
    const compacted = (e: unknown): ApiError => fromStorageError(e, { resource: this.resource, name: '', op: 'watch', requestedRevision: from });
    let handle: Awaited<ReturnType<Storage['watch']>> | undefined;
    try {
      handle = await this.storage.watch(prefix, from, listener, (err) => {
        // after the events still being converted
        void delivered.then(() => end(isStorageError(err, 'Compacted') ? compacted(err) : undefined));
      });
    } catch (e) {
      if (isStorageError(e, 'Compacted')) {
        end(compacted(e));
        return { cancel: () => undefined, afterPending: () => undefined, progressRevision: 0 };
      }
      throw compacted(e);
    }
    const h = handle;
    return {
      cancel: () => {
        ended = true;
        h.cancel();
      },
      afterPending: (fn) => {
        void delivered.then(() => {
          if (!ended) fn();
        });
      },
      get progressRevision() {
        return h.progressRevision ?? 0;
      },
    };
  }

  // ---------------------------------------------------------------- conversion

  private toServed(objs: Obj[], list = false): Promise<Obj[]> {
    return convertObjects(this.converter as ObjectConverter, objs, this.config.apiVersion, this.storageApiVersion, list);
  }

  /** Stored values at the served version (one conversion call for all), stamped with their revisions. */
  private async decodeConverted(kvs: readonly { value: string; modRevision: number }[], list = false): Promise<Obj[]> {
    const out = await this.toServed(kvs.map((kv) => JSON.parse(kv.value) as Obj), list);
    out.forEach((o, i) => {
      meta(o).resourceVersion = String(kvs[i].modRevision);
    });
    return out;
  }

  /** `obj` as it is written: without resourceVersion, converted to the storage version. */
  private async toStorage(obj: Obj): Promise<Obj> {
    return (await convertObjects(this.converter as ObjectConverter, [withoutResourceVersion(obj)], this.storageApiVersion, this.storageApiVersion))[0];
  }

  /**
   * The answer to a write of `obj`: what was stored, converted back to the served version as
   * upstream decodes it (`obj` itself when the versions are the same); resourceVersion from `obj`.
   */
  private async fromStorage(stored: Obj, obj: Obj): Promise<Obj> {
    if (stored.apiVersion === this.config.apiVersion) return obj;
    const out = (await this.toServed([structuredClone(stored)]))[0];
    const rv = metaOf(obj).resourceVersion;
    if (rv !== undefined) meta(out).resourceVersion = rv;
    return out;
  }
}
