// The generic store: one implementation for every resource. A resource differs only by its
// ResourceDescriptor, its compiled validator and an optional strategy (api-conventions 2 to 5).

import { randomUUID } from 'node:crypto';
import { ApiError, successStatus, type ResourceRef, type Status } from '../errors/api-error.ts';
import { fromStorageError } from '../errors/storage-errors.ts';
import type { ResourceDescriptor } from '../http/route-types.ts';
import { fieldErr } from '../schema/errors.ts';
import type { CompiledValidator, FieldError, Schema } from '../schema/types.ts';
import { updateManagedFields } from '../patch/index.ts';
import { isStorageError, keyAfter, objectKey, objectPrefix, type KeyValue, type Storage, type WatchEvent } from '../storage/interface.ts';
import { ContinueTokenError, decodeContinue, encodeContinue } from './continue-token.ts';
import { checkFieldSelector, objectFields, parseFieldSelector, type FieldSelector } from './field-selector.ts';
import { LabelSelector, parseLabelSelector, SelectorParseError } from './label-selector.ts';
import { deepClone, deepEqual, generateName, isObj, meta, metaOf, nowTimestamp, type Obj } from './object.ts';
import { dropEmptyOmitted } from './omit-empty.ts';
import type { Registry } from './registry.ts';
import type { Strategy } from './strategy.ts';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface ListParams {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  /** undefined when absent (presence matters to validation). */
  sendInitialEvents?: boolean;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
}

export interface GetParams {
  resourceVersion?: string;
}

/**
 * What the store hands to validating admission for one write, after defaulting and validation and
 * just before storage (the HTTP layer turns it into the webhook engine's attributes).
 */
export interface AdmissionCheck {
  operation: 'CREATE' | 'UPDATE' | 'DELETE';
  /** The object as it would be stored; undefined on DELETE. */
  object: Obj | undefined;
  /** The stored object; undefined on CREATE. */
  oldObject: Obj | undefined;
  /** The object's name as the request gave it ('' for a create with generateName, as upstream). */
  name: string;
  namespace: string | undefined;
  subresource?: 'status';
  dryRun: boolean;
}

/** Validating admission of one write: resolves when allowed, throws an ApiError when rejected. */
export type Admit = (check: AdmissionCheck) => Promise<void>;

export interface WriteOptions {
  dryRun?: boolean;
  /** Validating admission (webhooks), called after validation and before storage. */
  admit?: Admit;
  fieldValidation?: FieldValidation;
  /** The manager recorded in managedFields (already defaulted from the User-Agent). */
  fieldManager?: string;
  /** The object's managedFields were computed by server-side apply: keep them as they are. */
  managedFieldsSet?: boolean;
}

export interface DeleteOptions {
  dryRun?: boolean;
  gracePeriodSeconds?: number;
  propagationPolicy?: string;
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Validating admission (webhooks), called with the stored object before it is deleted. */
  admit?: Admit;
}

export interface WriteResult {
  object: Obj;
  warnings: string[];
  /** An update that created the object (strategy.allowCreateOnUpdate): upstream answers 201. */
  created?: boolean;
}

export type DeleteResult =
  | { kind: 'object'; object: Obj; /** true when finalizers keep the object (deletionTimestamp set) */ deferred: boolean }
  | { kind: 'status'; status: Status };

export interface ListResult {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: Obj[];
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchSink {
  /** One event; objects carry kind and apiVersion. Shared objects: never mutate them. */
  send(type: Exclude<WatchEventType, 'ERROR'>, object: Obj): void;
  /** An ERROR event (the HTTP edge renders it as a Status); `end()` follows. */
  error(e: ApiError): void;
  /** The stream is over (after an ERROR event, or the storage closed). */
  end(): void;
}

export interface WatchStream {
  stop(): void;
  /** Sends a BOOKMARK at the last revision delivered, when the watcher allows bookmarks (upstream sends one just before a timeout). */
  bookmark(): void;
}

export interface StoreOptions {
  /** How long a read of a future resourceVersion waits for the store to catch up (upstream ~3 s). */
  futureRevisionWaitMs?: number;
  /** Period of BOOKMARK events for watchers that allow them (upstream ≈ 1 min). */
  bookmarkIntervalMs?: number;
  /** Named shapes (definitions.json): when given, writes maintain metadata.managedFields. */
  shapes?: Record<string, Schema>;
  /**
   * Custom resources: the apiVersion objects are stored at (the CRD's storage version). Objects are
   * converted to it on write and from the apiVersion they were stored at on read.
   */
  storageApiVersion?: string;
  /** Custom resources: the CRD's converter (without one, conversion None: only apiVersion changes). */
  converter?: ObjectConverter;
}

/**
 * Converts custom resources between versions (runtime/crd/conversion.ts). Objects already at
 * `apiVersion` come back as they are; inputs are not modified; failures are ApiErrors.
 */
export interface ObjectConverter {
  convert(objects: readonly Obj[], apiVersion: string, opts?: { list?: boolean }): Promise<Obj[]>;
}

/** Conversion None: only apiVersion changes (a store given storageApiVersion without a converter). */
const API_VERSION_ONLY: ObjectConverter = {
  async convert(objects, apiVersion) {
    return objects.map((o) => (o.apiVersion === apiVersion ? o : { ...o, apiVersion }));
  },
};

/** A failure on a watch stream: upstream wraps errors that are no API status as InternalError. */
function watchError(e: unknown): ApiError {
  return e instanceof ApiError && e.reason !== '' ? e : ApiError.internal(e);
}

/** Rendered GET bodies kept per store (see Store.getJson). */
const RENDERED_GETS = 256;

const UNSUPPORTED_POLICY = ['Foreground', 'Background', 'Orphan', 'nil'];

/** The most keys one storage read of a filtered list asks for (upstream's maxLimit). */
const MAX_LIST_PAGE = 10_000;

/** `apiVersion` of a descriptor: `v1` for core, `<group>/<version>` otherwise. */
export function apiVersionOf(d: ResourceDescriptor): string {
  return d.group ? `${d.group}/${d.version}` : d.version;
}

export function parseResourceVersion(rv: string | undefined): number | undefined {
  if (rv === undefined || rv === '') return undefined;
  if (!/^\d+$/.test(rv) || !Number.isSafeInteger(Number(rv))) {
    throw ApiError.badRequest(`invalid resource version: strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`);
  }
  return Number(rv);
}

interface Selection {
  labels: LabelSelector;
  fields: FieldSelector;
}

export class Store {
  readonly descriptor: ResourceDescriptor;
  readonly resource: ResourceRef;
  readonly apiVersion: string;
  private readonly hasStatus: boolean;
  /** Conversion between the stored and this store's version (custom resources only; built-ins skip it all). */
  private readonly converter: ObjectConverter | undefined;

  constructor(
    readonly registry: Registry,
    readonly storage: Storage,
    descriptor: ResourceDescriptor,
    readonly validator: CompiledValidator,
    readonly strategy: Strategy = {},
    private readonly options: StoreOptions = {},
  ) {
    this.descriptor = descriptor;
    this.resource = { group: descriptor.group, plural: descriptor.plural };
    this.apiVersion = apiVersionOf(descriptor);
    this.hasStatus = descriptor.subresources.includes('status');
    // Objects kept under another resource's keys (strategy.storedWith) are read and written through its converter.
    if (strategy.storedWith) this.options = { ...options, storageApiVersion: strategy.storedWith.apiVersion, converter: strategy.storedWith.converter };
    this.converter = this.options.converter ?? (this.options.storageApiVersion !== undefined ? API_VERSION_ONLY : undefined);
  }

  // ---------------------------------------------------------------- keys and codec

  key(namespace: string | undefined, name: string): string {
    const stored = this.strategy.storedWith ?? this.descriptor;
    return objectKey(stored.group, stored.plural, this.descriptor.namespaced ? namespace : undefined, name);
  }

  prefix(namespace: string | undefined): string {
    const stored = this.strategy.storedWith ?? this.descriptor;
    return objectPrefix(stored.group, stored.plural, this.descriptor.namespaced ? namespace : undefined);
  }

  /** Parses a stored value and stamps its resourceVersion (custom resources: at the apiVersion stored). */
  decode(value: string, revision: number): Obj {
    const obj = JSON.parse(value) as Obj;
    meta(obj).resourceVersion = String(revision);
    return obj;
  }

  private encode(obj: Obj): string {
    return JSON.stringify(stripRv(obj));
  }

  /** Stored values at this store's version (one conversion call for all), then stamped with their revisions. */
  private async decodeConverted(kvs: readonly { value: string; modRevision: number }[], list = false): Promise<Obj[]> {
    const out = await this.convertTo(kvs.map((kv) => JSON.parse(kv.value) as Obj), this.apiVersion, list);
    out.forEach((o, i) => {
      meta(o).resourceVersion = String(kvs[i].modRevision);
    });
    return out;
  }

  /** Objects, each at the apiVersion it carries (the storage version when none), converted to `apiVersion`. */
  private async convertTo(objs: Obj[], apiVersion: string, list = false): Promise<Obj[]> {
    for (const o of objs) if (o.apiVersion === undefined) o.apiVersion = this.options.storageApiVersion ?? this.apiVersion;
    try {
      return await (this.converter as ObjectConverter).convert(objs, apiVersion, { list });
    } catch (e) {
      throw e instanceof ApiError ? e : new ApiError(500, '', e instanceof Error ? e.message : String(e));
    }
  }

  /** `obj` as it is written: without resourceVersion, converted to the storage version. */
  private async toStorage(obj: Obj): Promise<Obj> {
    return (await this.convertTo([stripRv(obj)], this.options.storageApiVersion ?? this.apiVersion))[0];
  }

  /**
   * The answer to a write of `obj`: what was stored, converted back to this store's version as
   * upstream decodes it (`obj` itself when the versions are the same); resourceVersion from `obj`.
   */
  private async fromStorage(stored: Obj, obj: Obj): Promise<Obj> {
    if (stored.apiVersion === this.apiVersion) return obj;
    const out = (await this.convertTo([structuredClone(stored)], this.apiVersion))[0];
    const rv = metaOf(obj).resourceVersion;
    if (rv !== undefined) meta(out).resourceVersion = rv;
    return out;
  }

  /** encode, converting custom resources to the storage version first. */
  private async encodeAsync(obj: Obj): Promise<string> {
    return this.converter ? JSON.stringify(await this.toStorage(obj)) : this.encode(obj);
  }

  private nsFor(namespace: string | undefined): string | undefined {
    return this.descriptor.namespaced ? namespace : undefined;
  }

  // ---------------------------------------------------------------- get

  async get(namespace: string | undefined, name: string, params: GetParams = {}): Promise<Obj> {
    const rv = parseResourceVersion(params.resourceVersion);
    if (rv !== undefined && rv > 0) await this.waitForRevision(rv);
    let kv: KeyValue | undefined;
    try {
      kv = (await this.storage.get(this.key(namespace, name))).kv;
    } catch (e) {
      throw fromStorageError(e, { resource: this.resource, name, op: 'get', requestedRevision: rv });
    }
    if (!kv) throw ApiError.notFound(this.resource, name);
    if (this.converter) return (await this.decodeConverted([kv]))[0];
    return this.decode(kv.value, kv.modRevision);
  }

  /** Rendered GET bodies by storage key: the text of one revision of an object never changes. */
  private readonly rendered = new Map<string, { rev: number; text: string }>();

  /**
   * GET as the JSON text the HTTP layer sends for a plain object (`{kind, apiVersion, ...}` and a
   * newline, not pretty): what `get` returns, rendered; cached per key at its revision, so a GET
   * of an unchanged object skips the parse and the stringify.
   */
  async getJson(namespace: string | undefined, name: string, params: GetParams = {}): Promise<string> {
    const rv = parseResourceVersion(params.resourceVersion);
    if (rv !== undefined && rv > 0) await this.waitForRevision(rv);
    const key = this.key(namespace, name);
    let kv: KeyValue | undefined;
    try {
      kv = (await this.storage.get(key)).kv;
    } catch (e) {
      throw fromStorageError(e, { resource: this.resource, name, op: 'get', requestedRevision: rv });
    }
    if (!kv) throw ApiError.notFound(this.resource, name);
    if (this.converter) {
      // not cached: a conversion webhook is asked on every read, as upstream does
      const { kind: _ck, apiVersion: _ca, ...fields } = (await this.decodeConverted([kv]))[0];
      return JSON.stringify({ kind: this.descriptor.kind, apiVersion: this.apiVersion, ...fields }) + '\n';
    }
    const hit = this.rendered.get(key);
    if (hit !== undefined && hit.rev === kv.modRevision) return hit.text;
    const { kind: _k, apiVersion: _a, ...rest } = this.decode(kv.value, kv.modRevision);
    const text = JSON.stringify({ kind: this.descriptor.kind, apiVersion: this.apiVersion, ...rest }) + '\n';
    if (hit === undefined && this.rendered.size >= RENDERED_GETS) this.rendered.delete(this.rendered.keys().next().value as string);
    this.rendered.set(key, { rev: kv.modRevision, text });
    return text;
  }

  /**
   * Stored object (at this store's version) and its revision, or undefined. `stale`: stored at
   * another apiVersion than the storage version (a write must rewrite it even when nothing changed).
   */
  private async read(namespace: string | undefined, name: string): Promise<{ obj: Obj; rev: number; stale?: boolean } | undefined> {
    let kv: KeyValue | undefined;
    try {
      kv = (await this.storage.get(this.key(namespace, name))).kv;
    } catch (e) {
      throw fromStorageError(e, { resource: this.resource, name, op: 'get' });
    }
    if (!kv) return undefined;
    if (!this.converter) return { obj: this.decode(kv.value, kv.modRevision), rev: kv.modRevision };
    const raw = JSON.parse(kv.value) as Obj;
    const stale = raw.apiVersion !== undefined && raw.apiVersion !== this.options.storageApiVersion;
    const obj = (await this.convertTo([raw], this.apiVersion))[0];
    meta(obj).resourceVersion = String(kv.modRevision);
    return { obj, rev: kv.modRevision, stale };
  }

  /** The storage's current revision; a storage failure (etcd unreachable) as its Status (503), not an internal error. */
  private async revisionNow(): Promise<number> {
    try {
      return await this.storage.currentRevision();
    } catch (e) {
      throw fromStorageError(e, { resource: this.resource, name: '', op: 'get' });
    }
  }

  /** Waits until the store reaches `rv`; 504 `Too large resource version` after the wait (upstream ~3 s). */
  private async waitForRevision(rv: number): Promise<void> {
    const deadline = Date.now() + (this.options.futureRevisionWaitMs ?? 3000);
    for (;;) {
      const cur = await this.revisionNow();
      if (cur >= rv) return;
      if (Date.now() >= deadline) {
        throw ApiError.timeout(`Too large resource version: ${rv}, current: ${cur}`, 1, [
          { reason: 'ResourceVersionTooLarge', message: 'Too large resource version' },
        ]);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  // ---------------------------------------------------------------- selection

  parseSelection(params: { labelSelector?: string; fieldSelector?: string }): Selection {
    try {
      const labels = parseLabelSelector(params.labelSelector ?? '');
      const fields = parseFieldSelector(params.fieldSelector ?? '');
      checkFieldSelector(fields, this.descriptor.fieldSelectors);
      return { labels, fields };
    } catch (e) {
      if (e instanceof SelectorParseError) throw ApiError.badRequest(e.message);
      throw e;
    }
  }

  private fieldsOf(obj: Obj): Record<string, string> {
    const base = objectFields(obj, this.descriptor.fieldSelectors);
    return this.strategy.fieldValues ? { ...base, ...this.strategy.fieldValues(obj) } : base;
  }

  private matches(sel: Selection, obj: Obj): boolean {
    if (!sel.labels.empty && !sel.labels.matches(metaOf(obj).labels)) return false;
    if (!sel.fields.empty && !sel.fields.matches(this.fieldsOf(obj))) return false;
    return true;
  }

  // ---------------------------------------------------------------- list

  validateListOptions(params: ListParams, watch: boolean): void {
    const errs: FieldError[] = [];
    const match = params.resourceVersionMatch ?? '';
    if (watch) {
      if (params.sendInitialEvents !== undefined) {
        if (match !== 'NotOlderThan') {
          errs.push(fieldErr.forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
        }
        if (!this.registry.featureGates.WatchList) {
          errs.push(fieldErr.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled'));
        }
      }
      if (match) {
        if (params.sendInitialEvents === undefined) {
          errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
        }
        if (match !== 'NotOlderThan') errs.push(fieldErr.notSupported('resourceVersionMatch', match, ['NotOlderThan']));
        if (params.continue) errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
      }
    } else {
      if (match) {
        if (!params.resourceVersion) {
          errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
        }
        if (params.continue) errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
        if (match !== 'Exact' && match !== 'NotOlderThan') errs.push(fieldErr.notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
        if (match === 'Exact' && params.resourceVersion === '0') {
          errs.push(fieldErr.forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
        }
      }
      if (params.sendInitialEvents !== undefined) errs.push(fieldErr.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
    }
    if (errs.length) throw ApiError.invalidOptions('ListOptions', errs);
  }

  async list(namespace: string | undefined, params: ListParams = {}): Promise<ListResult> {
    this.validateListOptions(params, false);
    const sel = this.parseSelection(params);
    const prefix = this.prefix(this.nsFor(namespace));
    const rv = parseResourceVersion(params.resourceVersion);
    // resourceVersion=0 without continue is answered in full, as upstream's watch cache does
    // (informers send limit=500 with it).
    const servedInFull = rv === 0 && !params.continue;
    const limit = params.limit && params.limit > 0 && !servedInFull ? Math.floor(params.limit) : 0;

    let snapshot: number | undefined;
    let startKey: string | undefined;
    let inconsistentContinue = false;
    if (params.continue) {
      if (rv !== undefined && rv !== 0) throw ApiError.badRequest('specifying resource version is not allowed when using continue');
      let tok;
      try {
        tok = decodeContinue(params.continue);
      } catch (e) {
        if (e instanceof ContinueTokenError) throw ApiError.badRequest(`invalid continue token: ${e.message}`);
        throw e;
      }
      snapshot = tok.rv;
      startKey = prefix + tok.start;
      inconsistentContinue = tok.rv < 0;
      if (inconsistentContinue) snapshot = undefined;
    } else if (rv !== undefined && rv > 0) {
      const match = params.resourceVersionMatch ?? '';
      const exact = match === 'Exact' || (match === '' && limit > 0);
      if (exact) {
        snapshot = rv;
        const cur = await this.revisionNow();
        if (rv > cur) await this.waitForRevision(rv);
      } else {
        await this.waitForRevision(rv);
      }
    }

    const items: Obj[] = [];
    let more = false;
    let remaining = 0;
    let lastKey: string | undefined;
    let revision = 0;
    const filtered = !sel.labels.empty || !sel.fields.empty;
    // As upstream's storage: pages are read until `limit` items match or the range ends, stopping at
    // the limit-th match (the continue key follows the last item returned); each further read of a
    // filtered list asks for twice as many keys, up to MAX_LIST_PAGE.
    let pageSize = limit;
    for (;;) {
      let res;
      try {
        res = await this.storage.list(prefix, { revision: snapshot, startKey, limit: pageSize || undefined });
      } catch (e) {
        if (params.continue && isStorageError(e, 'Compacted')) throw this.continueExpired(prefix, startKey ?? prefix);
        throw fromStorageError(e, { resource: this.resource, name: '', op: 'list', requestedRevision: snapshot });
      }
      revision = res.revision;
      snapshot = res.revision;
      more = res.more;
      remaining = res.remaining;
      // custom resources: the page is converted in one call before selectors see it (they apply to this version)
      const converted = this.converter ? await this.decodeConverted(res.items, true) : undefined;
      for (const [i, kv] of res.items.entries()) {
        if (limit && items.length >= limit) {
          more = true;
          break;
        }
        lastKey = kv.key;
        const obj = converted ? converted[i] : this.decode(kv.value, kv.modRevision);
        if (!this.matches(sel, obj)) continue;
        // a copy without them rather than `delete`, which leaves V8 a slow dictionary object to stringify
        const { kind: _k, apiVersion: _a, ...item } = obj;
        items.push(item);
      }
      if (!limit || !more || items.length >= limit || res.items.length === 0) break;
      startKey = keyAfter(lastKey as string);
      pageSize = Math.min(pageSize * 2, Math.max(MAX_LIST_PAGE, limit));
    }
    const out: ListResult = {
      kind: this.descriptor.listKind,
      apiVersion: this.apiVersion,
      metadata: { resourceVersion: String(revision) },
      items,
    };
    if (limit && more && lastKey !== undefined) {
      out.metadata.continue = encodeContinue(revision, keyAfter(lastKey).slice(prefix.length));
      if (!filtered && !inconsistentContinue) out.metadata.remainingItemCount = remaining;
    }
    return out;
  }

  private continueExpired(prefix: string, startKey: string): ApiError {
    const err = new ApiError(
      410,
      'Expired',
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
    );
    err.statusMetadata = { continue: encodeContinue(-1, startKey.slice(prefix.length)) };
    return err;
  }

  // ---------------------------------------------------------------- create

  /** Checks apiVersion/kind of a body and fills them when absent. */
  checkTypeMeta(obj: Obj): void {
    if (obj.apiVersion === undefined || obj.apiVersion === '') obj.apiVersion = this.apiVersion;
    if (obj.kind === undefined || obj.kind === '') obj.kind = this.descriptor.kind;
    if (obj.apiVersion !== this.apiVersion) {
      throw ApiError.badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${this.apiVersion})`);
    }
    if (obj.kind !== this.descriptor.kind) {
      throw ApiError.badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${this.descriptor.kind})`);
    }
  }

  /** Unknown fields per fieldValidation: Strict 400; Warn a warning each; Ignore silently dropped. */
  private pruneUnknown(obj: Obj, fv: FieldValidation, warnings: string[]): void {
    const unknown = this.validator.prune(obj);
    if (!unknown.length || fv === 'Ignore') return;
    if (fv === 'Strict') {
      const k = this.descriptor.kind;
      throw ApiError.badRequest(
        `${k} in version "${this.descriptor.version}" cannot be handled as a ${k}: strict decoding error: ${unknown.map((p) => `unknown field "${p}"`).join(', ')}`,
      );
    }
    for (const p of unknown) warnings.push(`unknown field "${p}"`);
  }

  /** Fields an endpoint resets and never tracks: status on the main endpoint, spec on /status. */
  ignoredFields(subresource?: 'status'): string[][] {
    if (subresource === 'status') return [['spec']];
    return this.hasStatus ? [['status']] : [];
  }

  /** Records an Update by `manager` in metadata.managedFields (upstream's field manager). */
  private trackManagedFields(old: Obj | undefined, obj: Obj, opts: WriteOptions & { subresource?: 'status' }): Obj {
    const shapes = this.options.shapes;
    if (!shapes || opts.managedFieldsSet) return obj;
    const next = updateManagedFields(
      old,
      obj,
      { manager: opts.fieldManager ?? '', apiVersion: this.apiVersion, subresource: opts.subresource, now: new Date(), ignoredFields: this.ignoredFields(opts.subresource) },
      shapes[this.descriptor.shape ?? this.descriptor.kind],
      shapes,
    ) as Obj;
    const mf = metaOf(next).managedFields;
    if (mf === undefined || (Array.isArray(mf) && mf.length === 0)) delete meta(next).managedFields;
    return next;
  }

  private invalid(name: string, errs: FieldError[]): ApiError {
    return ApiError.invalid({ group: this.descriptor.group, kind: this.descriptor.kind }, name, errs);
  }

  async create(namespace: string | undefined, body: Obj, opts: WriteOptions = {}): Promise<WriteResult> {
    const warnings: string[] = [];
    let obj = body;
    this.checkTypeMeta(obj);
    const m = meta(obj);
    const ns = this.nsFor(namespace);
    if (this.descriptor.namespaced) {
      if (m.namespace && ns && m.namespace !== ns) {
        throw ApiError.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      if (ns) m.namespace = ns;
    } else {
      delete m.namespace;
    }
    this.pruneUnknown(obj, opts.fieldValidation ?? 'Warn', warnings);
    if (m.resourceVersion) throw ApiError.internal(new Error('resourceVersion should not be set on objects to be created'));
    // Server-owned metadata.
    m.uid = randomUUID();
    m.creationTimestamp = nowTimestamp();
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    delete m.selfLink;
    if (!this.options.shapes) delete m.managedFields;
    if (this.descriptor.generation) m.generation = 1;
    // Status is discarded on create; an empty one lets defaulting fill it (PV/PVC phase Pending).
    if (this.hasStatus) obj.status = {};
    const requestedName = m.name ?? '';
    const wantGenerate = !m.name && !!m.generateName;
    if (wantGenerate) m.name = generateName(m.generateName as string);
    this.strategy.prepareForCreate?.(obj);
    this.validator.applyDefaults(obj);
    if (this.hasStatus && isObj(obj.status) && Object.keys(obj.status).length === 0) delete obj.status;
    const errs = [...this.validator.validate(obj), ...(this.strategy.validate?.(obj) ?? [])];
    if (errs.length) throw this.invalid(m.name ?? '', errs);
    if (this.options.shapes) dropEmptyOmitted(obj, this.descriptor.shape ?? this.descriptor.kind, this.options.shapes, this.converter !== undefined);
    obj = this.trackManagedFields(undefined, obj, opts);
    const mm = meta(obj);
    if (this.descriptor.namespaced) await this.registry.admitNamespace(ns ?? '', this.resource, mm.name ?? '');
    if (opts.admit) {
      await opts.admit({ operation: 'CREATE', object: obj, oldObject: undefined, name: requestedName, namespace: ns, dryRun: !!opts.dryRun });
    }
    if (opts.dryRun) {
      mm.resourceVersion = '';
      // a dry run goes through the storage codec too (upstream's dry-run storage encodes and decodes)
      return { object: this.converter ? await this.fromStorage(await this.toStorage(obj), obj) : obj, warnings };
    }
    for (let attempt = 0; ; attempt++) {
      const stored = this.converter ? await this.toStorage(obj) : undefined;
      try {
        const rev = await this.storage.create(this.key(ns, mm.name as string), stored ? JSON.stringify(stored) : this.encode(obj));
        mm.resourceVersion = String(rev);
        return { object: stored ? await this.fromStorage(stored, obj) : obj, warnings };
      } catch (e) {
        if (isStorageError(e, 'KeyExists')) {
          if (wantGenerate) {
            if (attempt < 7) {
              mm.name = generateName(mm.generateName as string);
              continue;
            }
            throw ApiError.alreadyExists(this.resource, mm.name as string, { generateNameExhausted: true });
          }
          const cur = e.current ? (JSON.parse(e.current.value) as Obj) : undefined;
          throw ApiError.alreadyExists(this.resource, mm.name as string, { deleting: !!(cur && metaOf(cur).deletionTimestamp) });
        }
        throw fromStorageError(e, { resource: this.resource, name: mm.name as string, op: 'write' });
      }
    }
  }

  // ---------------------------------------------------------------- update

  /**
   * PUT (main endpoint or /status). `body` is the full new object. When `precondition` is false,
   * a body without resourceVersion is an unconditional update (after the type allows it).
   */
  async update(
    namespace: string | undefined,
    name: string,
    body: Obj,
    opts: WriteOptions & { subresource?: 'status'; fromPatch?: boolean } = {},
  ): Promise<WriteResult> {
    const warnings: string[] = [];
    let obj = body;
    this.checkTypeMeta(obj);
    let m = meta(obj);
    const ns = this.nsFor(namespace);
    if (m.name !== undefined && m.name !== '' && m.name !== name) {
      throw ApiError.badRequest(`the name of the object (${m.name}) does not match the name on the URL (${name})`);
    }
    if (this.descriptor.namespaced) {
      if (m.namespace && ns && m.namespace !== ns) {
        throw ApiError.badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      if (ns) m.namespace = ns;
    } else delete m.namespace;
    m.name = name;
    this.pruneUnknown(obj, opts.fieldValidation ?? 'Warn', warnings);

    const current = await this.read(ns, name);
    if (!current && this.strategy.allowCreateOnUpdate && opts.subresource === undefined) {
      // Upstream's AllowCreateOnUpdate: a PUT of a missing object creates it (storage ignores the body's resourceVersion).
      delete m.resourceVersion;
      const created = await this.create(namespace, obj, opts);
      return { object: created.object, warnings: [...warnings, ...created.warnings], created: true };
    }
    if (!current) throw ApiError.notFound(this.resource, name);
    const old = current.obj;
    const oldMeta = metaOf(old);

    const bodyRv = m.resourceVersion;
    if (!bodyRv) {
      if (this.descriptor.updateRequiresResourceVersion && !opts.fromPatch) {
        const e = ApiError.invalid({ group: this.descriptor.group, kind: this.descriptor.plural }, name, [
          fieldErr.invalid('metadata.resourceVersion', 0, 'must be specified for an update'),
        ]);
        throw e;
      }
    } else {
      const want = parseResourceVersion(bodyRv);
      if (want !== current.rev) throw ApiError.staleConflict(this.resource, name);
    }

    // Server-owned fields: the stored values win.
    m.resourceVersion = String(current.rev);
    if (!m.uid) m.uid = oldMeta.uid;
    m.creationTimestamp = oldMeta.creationTimestamp;
    if (oldMeta.deletionTimestamp) m.deletionTimestamp = oldMeta.deletionTimestamp;
    else delete m.deletionTimestamp;
    if (oldMeta.deletionGracePeriodSeconds !== undefined) m.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
    else delete m.deletionGracePeriodSeconds;
    if (oldMeta.generation !== undefined) m.generation = oldMeta.generation;
    else delete m.generation;
    delete m.selfLink;
    if (!this.options.shapes) {
      if (oldMeta.managedFields !== undefined) m.managedFields = oldMeta.managedFields;
      else delete m.managedFields;
    }

    if (opts.subresource === 'status') {
      // Only status is taken; everything outside metadata and status comes from storage.
      for (const k of Object.keys(obj)) if (k !== 'metadata' && k !== 'status' && k !== 'kind' && k !== 'apiVersion') delete obj[k];
      for (const [k, v] of Object.entries(old)) if (k !== 'metadata' && k !== 'status') obj[k] = deepClone(v);
      this.strategy.prepareForStatusUpdate?.(obj, old);
    } else {
      if (this.hasStatus) {
        if (old.status !== undefined) obj.status = deepClone(old.status);
        else delete obj.status;
      }
      this.strategy.prepareForUpdate?.(obj, old);
    }
    this.validator.applyDefaults(obj);

    if (this.descriptor.generation && opts.subresource !== 'status' && specChanged(obj, old, this.hasStatus)) {
      m.generation = (oldMeta.generation ?? 0) + 1;
    }

    const errs = [...this.validator.validateUpdate(obj, old), ...(this.strategy.validateUpdate?.(obj, old) ?? [])];
    if (errs.length) throw this.invalid(name, errs);
    if (this.options.shapes) dropEmptyOmitted(obj, this.descriptor.shape ?? this.descriptor.kind, this.options.shapes, this.converter !== undefined);
    obj = this.trackManagedFields(old, obj, opts);
    m = meta(obj);
    if (opts.admit) {
      await opts.admit({ operation: 'UPDATE', object: obj, oldObject: old, name, namespace: ns, subresource: opts.subresource, dryRun: !!opts.dryRun });
    }

    // A deleting object whose last finalizer is removed goes away.
    const deleteNow = !!oldMeta.deletionTimestamp && (!m.finalizers || m.finalizers.length === 0);
    if (deleteNow) {
      if (opts.dryRun) return { object: obj, warnings };
      try {
        const res = await this.storage.delete(this.key(ns, name), current.rev);
        m.resourceVersion = String(res.revision);
      } catch (e) {
        throw fromStorageError(e, { resource: this.resource, name, op: 'write' });
      }
      return { object: obj, warnings };
    }

    // an object stored at an older version is rewritten even when unchanged (storage version migration relies on it)
    if (!current.stale && deepEqual(stripRv(obj), stripRv(old))) return { object: old, warnings };
    const stored = this.converter ? await this.toStorage(obj) : undefined;
    if (opts.dryRun) return { object: stored ? await this.fromStorage(stored, obj) : obj, warnings };
    try {
      const rev = await this.storage.update(this.key(ns, name), stored ? JSON.stringify(stored) : this.encode(obj), current.rev);
      m.resourceVersion = String(rev);
    } catch (e) {
      throw fromStorageError(e, { resource: this.resource, name, op: 'write' });
    }
    return { object: stored ? await this.fromStorage(stored, obj) : obj, warnings };
  }

  /**
   * PATCH: reads the object, applies `apply` to a copy and updates with the read revision as the
   * precondition (or the patched object's own resourceVersion when it carries one). Retries on
   * conflicts the client did not ask for, as upstream does.
   */
  async patch(
    namespace: string | undefined,
    name: string,
    apply: (current: Obj) => Obj,
    opts: WriteOptions & { subresource?: 'status' } = {},
  ): Promise<WriteResult> {
    for (let attempt = 0; ; attempt++) {
      const current = await this.get(namespace, name);
      const currentRv = metaOf(current).resourceVersion;
      const patched = apply(deepClone(current));
      if (!isObj(patched)) throw ApiError.badRequest('the patch must produce an object');
      const pm = meta(patched);
      const explicitRv = pm.resourceVersion !== undefined && pm.resourceVersion !== currentRv;
      if (pm.resourceVersion === undefined || pm.resourceVersion === '' || pm.resourceVersion === null) pm.resourceVersion = currentRv;
      try {
        return await this.update(namespace, name, patched, { ...opts, fromPatch: true });
      } catch (e) {
        if (e instanceof ApiError && e.reason === 'Conflict' && !explicitRv && attempt < 5) continue;
        throw e;
      }
    }
  }

  // ---------------------------------------------------------------- delete

  private checkDeleteOptions(o: DeleteOptions): void {
    const errs: FieldError[] = [];
    if (o.propagationPolicy !== undefined && !['Foreground', 'Background', 'Orphan'].includes(o.propagationPolicy)) {
      errs.push(fieldErr.notSupported('propagationPolicy', o.propagationPolicy, UNSUPPORTED_POLICY));
    }
    if (o.orphanDependents !== undefined && o.propagationPolicy !== undefined) {
      errs.push(fieldErr.invalid('propagationPolicy', o.propagationPolicy, 'orphanDependents and deletionPropagation cannot be both set'));
    }
    if (o.gracePeriodSeconds !== undefined && o.gracePeriodSeconds < 0) {
      // upstream treats negative as 1; nothing to report
    }
    if (errs.length) throw ApiError.invalidOptions('DeleteOptions', errs);
  }

  async delete(namespace: string | undefined, name: string, options: DeleteOptions = {}): Promise<DeleteResult> {
    this.checkDeleteOptions(options);
    const ns = this.nsFor(namespace);
    for (let attempt = 0; ; attempt++) {
      const current = await this.read(ns, name);
      if (!current) throw ApiError.notFound(this.resource, name);
      const cm = metaOf(current.obj);
      const pre = options.preconditions;
      if (pre?.uid !== undefined && pre.uid !== cm.uid) {
        throw ApiError.conflict(this.resource, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${cm.uid ?? ''}`);
      }
      if (pre?.resourceVersion !== undefined && pre.resourceVersion !== cm.resourceVersion) {
        throw ApiError.conflict(
          this.resource,
          name,
          `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${cm.resourceVersion ?? ''}`,
        );
      }
      if (options.admit) {
        await options.admit({ operation: 'DELETE', object: undefined, oldObject: current.obj, name, namespace: ns, dryRun: !!options.dryRun });
      }
      if (this.strategy.delete) return this.strategy.delete({ registry: this.registry, store: this }, current.obj, options);
      try {
        return await this.deleteObject(current.obj, current.rev, options);
      } catch (e) {
        if (e instanceof ApiError && e.reason === 'Conflict' && !pre && attempt < 5) continue;
        throw e;
      }
    }
  }

  /**
   * A server-side write (no validation, no server-owned field handling): compare-and-swap of `obj`
   * on revision `rev`. For strategies that change what clients may not (deletion marks).
   */
  async writeServerUpdate(obj: Obj, rev: number): Promise<Obj> {
    const m = meta(obj);
    try {
      const newRev = await this.storage.update(this.key(this.nsFor(m.namespace), m.name as string), await this.encodeAsync(obj), rev);
      m.resourceVersion = String(newRev);
      return obj;
    } catch (e) {
      throw fromStorageError(e, { resource: this.resource, name: m.name as string, op: 'write' });
    }
  }

  /** The generic delete of one read object: mark (finalizers) or remove. */
  async deleteObject(obj: Obj, rev: number, options: DeleteOptions): Promise<DeleteResult> {
    const m = meta(obj);
    const name = m.name as string;
    const ns = this.nsFor(m.namespace);
    const finalizers = [...(m.finalizers ?? [])];
    const policy = options.propagationPolicy ?? (options.orphanDependents === true ? 'Orphan' : undefined);
    const wanted = policy === 'Foreground' ? 'foregroundDeletion' : policy === 'Orphan' ? 'orphan' : undefined;
    let changedFinalizers = false;
    if (wanted && !m.deletionTimestamp) {
      const other = wanted === 'orphan' ? 'foregroundDeletion' : 'orphan';
      const idx = finalizers.indexOf(other);
      if (idx >= 0) finalizers.splice(idx, 1);
      if (!finalizers.includes(wanted)) finalizers.push(wanted);
      changedFinalizers = true;
    }
    if (finalizers.length > 0) {
      if (m.deletionTimestamp && !changedFinalizers) return { kind: 'object', object: obj, deferred: true };
      const next = deepClone(obj);
      const nm = meta(next);
      nm.finalizers = finalizers;
      if (!nm.deletionTimestamp) {
        nm.deletionTimestamp = nowTimestamp();
        nm.deletionGracePeriodSeconds = 0;
        if (this.descriptor.generation && typeof nm.generation === 'number' && nm.generation > 0) nm.generation += 1;
      }
      if (options.dryRun) return { kind: 'object', object: next, deferred: true };
      try {
        const newRev = await this.storage.update(this.key(ns, name), await this.encodeAsync(next), rev);
        nm.resourceVersion = String(newRev);
      } catch (e) {
        throw fromStorageError(e, { resource: this.resource, name, op: 'write' });
      }
      return { kind: 'object', object: next, deferred: true };
    }
    if (!options.dryRun) {
      try {
        await this.storage.delete(this.key(ns, name), rev);
      } catch (e) {
        throw fromStorageError(e, { resource: this.resource, name, op: 'write' });
      }
    }
    if (this.descriptor.deleteReturns === 'Object') return { kind: 'object', object: obj, deferred: false };
    return { kind: 'status', status: successStatus(this.resource, name, m.uid) };
  }

  /** DELETE on the collection: deletes each match one by one; returns the matched items as they were. */
  async deleteCollection(namespace: string | undefined, params: ListParams, options: DeleteOptions): Promise<ListResult> {
    this.checkDeleteOptions(options);
    const listed = await this.list(namespace, { labelSelector: params.labelSelector, fieldSelector: params.fieldSelector, resourceVersion: params.resourceVersion, resourceVersionMatch: params.resourceVersionMatch });
    for (const item of listed.items) {
      const m = metaOf(item);
      try {
        await this.delete(m.namespace, m.name as string, options);
      } catch (e) {
        if (e instanceof ApiError && e.code === 404) continue;
        throw e;
      }
    }
    return listed;
  }

  // ---------------------------------------------------------------- watch

  /**
   * Live events reach every watcher as the same WatchEvent object: each is decoded once (new and
   * previous state, with kind/apiVersion and the event's revision) and shared, read-only, by all
   * watchers, so that the HTTP layer can also serialize it once per format.
   */
  private readonly decodedEvents = new WeakMap<WatchEvent, { cur: Obj | undefined; prev: Obj | undefined }>();
  /** The same for custom resources: converted once per event for all watchers of this version. */
  private readonly convertedEvents = new WeakMap<WatchEvent, Promise<{ cur: Obj | undefined; prev: Obj | undefined }>>();

  private decodeEventConverted(ev: WatchEvent): Promise<{ cur: Obj | undefined; prev: Obj | undefined }> {
    let d = this.convertedEvents.get(ev);
    if (!d) {
      // each state on its own, as upstream's watch decodes them
      const typed = async (value: string | undefined): Promise<Obj | undefined> => {
        if (value === undefined) return undefined;
        const { kind: _k, apiVersion: _a, ...rest } = (await this.decodeConverted([{ value, modRevision: ev.modRevision }]))[0];
        return Object.freeze({ kind: this.descriptor.kind, apiVersion: this.apiVersion, ...rest });
      };
      d = Promise.all([typed(ev.value), typed(ev.prevValue)]).then(([cur, prev]) => ({ cur, prev }));
      // handled by each watcher's chain later; this keeps an early failure from being "unhandled"
      d.catch(() => undefined);
      this.convertedEvents.set(ev, d);
    }
    return d;
  }

  private decodeEvent(ev: WatchEvent): { cur: Obj | undefined; prev: Obj | undefined } {
    let d = this.decodedEvents.get(ev);
    if (!d) {
      const typed = (value: string | undefined): Obj | undefined => {
        if (value === undefined) return undefined;
        const { kind: _k, apiVersion: _a, ...rest } = this.decode(value, ev.modRevision);
        return Object.freeze({ kind: this.descriptor.kind, apiVersion: this.apiVersion, ...rest });
      };
      d = { cur: typed(ev.value), prev: typed(ev.prevValue) };
      this.decodedEvents.set(ev, d);
    }
    return d;
  }

  validateWatch(params: ListParams): Selection {
    this.validateListOptions(params, true);
    parseResourceVersion(params.resourceVersion);
    return this.parseSelection(params);
  }

  /**
   * Starts a watch. Throws ApiError for a bad request (before anything is streamed); a compacted
   * start point is reported in-stream as an ERROR event (410 Expired), as upstream does.
   */
  async watch(namespace: string | undefined, params: ListParams, sink: WatchSink): Promise<WatchStream> {
    const sel = this.validateWatch(params);
    const prefix = this.prefix(this.nsFor(namespace));
    const rv = parseResourceVersion(params.resourceVersion);
    const initial = params.sendInitialEvents === true || (params.sendInitialEvents === undefined && (rv === undefined || rv === 0));
    let stopped = false;
    let handle: { cancel(): void; readonly progressRevision?: number } | undefined;
    let bookmarkTimer: NodeJS.Timeout | undefined;
    let lastRev = 0;
    const stop = (): void => {
      if (stopped) return;
      stopped = true;
      handle?.cancel();
      if (bookmarkTimer) clearInterval(bookmarkTimer);
    };
    const withType = (o: Obj): Obj => {
      const { kind: _k, apiVersion: _a, ...rest } = o;
      return { kind: this.descriptor.kind, apiVersion: this.apiVersion, ...rest };
    };
    const bookmark = (rev: number, annotations?: Record<string, string>): void => {
      const md: Record<string, unknown> = { resourceVersion: String(rev) };
      if (annotations) md.annotations = annotations;
      sink.send('BOOKMARK', { kind: this.descriptor.kind, apiVersion: this.apiVersion, metadata: md });
    };
    const fail = (e: ApiError): void => {
      stop();
      sink.error(e);
      sink.end();
    };

    let from: number;
    if (initial) {
      // Synthetic ADDED events for the current state at one snapshot, then changes after it.
      if (rv !== undefined && rv > 0) await this.waitForRevision(rv);
      let startKey: string | undefined;
      let snapshot: number | undefined;
      const added: Obj[] = [];
      for (;;) {
        // a storage failure (etcd unreachable) answers as its Status (503), not as an internal error
        const page = await this.storage.list(prefix, { revision: snapshot, startKey, limit: 1000 }).catch((e: unknown) => {
          throw fromStorageError(e, { resource: this.resource, name: '', op: 'list', requestedRevision: snapshot });
        });
        snapshot = page.revision;
        let converted: Obj[] | undefined;
        if (this.converter) {
          try {
            converted = await this.decodeConverted(page.items, true);
          } catch (e) {
            fail(watchError(e));
            return { stop, bookmark: () => undefined };
          }
        }
        for (const [i, kv] of page.items.entries()) {
          const o = converted ? converted[i] : this.decode(kv.value, kv.modRevision);
          if (this.matches(sel, o)) added.push(o);
        }
        if (!page.more || page.items.length === 0) break;
        startKey = keyAfter(page.items[page.items.length - 1].key);
      }
      from = snapshot ?? (await this.revisionNow());
      for (const o of added) sink.send('ADDED', withType(o));
      // also upstream's key, which unmodified client-go's reflector waits for (README: compatibility choices)
      if (params.sendInitialEvents === true) bookmark(from, { 'cluster.io/initial-events-end': 'true', 'k8s.io/initial-events-end': 'true' });
    } else if (rv === undefined || rv === 0) {
      from = await this.revisionNow();
    } else {
      from = rv;
    }
    lastRev = from;

    // custom resources convert asynchronously: one chain per watcher keeps the events in order
    let delivered: Promise<void> = Promise.resolve();
    const onEvent = (ev: WatchEvent): void => {
      if (stopped) return;
      if (!this.converter) {
        deliver(ev, this.decodeEvent(ev));
        return;
      }
      const decoded = this.decodeEventConverted(ev);
      delivered = delivered.then(async () => {
        if (stopped) return;
        let d: { cur: Obj | undefined; prev: Obj | undefined };
        try {
          d = await decoded;
        } catch (e) {
          // upstream's watch sends the conversion failure as an ERROR event and ends the stream
          if (!stopped) fail(watchError(e));
          return;
        }
        if (!stopped) deliver(ev, d);
      });
    };
    const deliver = (ev: WatchEvent, { cur, prev }: { cur: Obj | undefined; prev: Obj | undefined }): void => {
      lastRev = ev.modRevision;
      const curMatch = cur !== undefined && this.matches(sel, cur);
      const prevMatch = prev !== undefined && this.matches(sel, prev);
      if (ev.type === 'delete') {
        if (prevMatch && prev) sink.send('DELETED', prev);
        return;
      }
      if (curMatch && cur) sink.send(prevMatch ? 'MODIFIED' : 'ADDED', cur);
      else if (prevMatch && prev) sink.send('DELETED', prev);
    };
    try {
      handle = await this.storage.watch(prefix, from, onEvent, (err) => {
        // after the events still being converted
        void delivered.then(() => {
          if (stopped) return;
          if (isStorageError(err, 'Compacted')) fail(fromStorageError(err, { resource: this.resource, name: '', op: 'watch', requestedRevision: from }));
          else {
            stop();
            sink.end();
          }
        });
      });
    } catch (e) {
      if (isStorageError(e, 'Compacted')) {
        fail(fromStorageError(e, { resource: this.resource, name: '', op: 'watch', requestedRevision: from }));
        return { stop, bookmark: () => undefined };
      }
      throw fromStorageError(e, { resource: this.resource, name: '', op: 'watch', requestedRevision: from });
    }
    if (stopped) handle.cancel();
    if (params.allowWatchBookmarks && !stopped) {
      bookmarkTimer = setInterval(() => {
        // the backend's progress (etcd's progress notifications) moves a quiet watch on, once the
        // events received before it are delivered
        const progress = handle?.progressRevision ?? 0;
        void delivered.then(() => {
          if (!stopped) bookmark(Math.max(lastRev, progress));
        });
      }, this.options.bookmarkIntervalMs ?? 60_000);
      bookmarkTimer.unref();
    }
    return {
      stop,
      bookmark: () => {
        if (!stopped && params.allowWatchBookmarks) bookmark(lastRev);
      },
    };
  }
}

/** A copy of `o` without metadata.resourceVersion (a copy rather than `delete`, which leaves V8 a slow dictionary object). */
function stripRv(o: Obj): Obj {
  const { resourceVersion: _rv, ...metadata } = metaOf(o) as Record<string, unknown>;
  return { ...o, metadata };
}

/** True when anything outside metadata (and status, with a status subresource) differs. */
function specChanged(a: Obj, b: Obj, ignoreStatus: boolean): boolean {
  const pick = (o: Obj): Obj => {
    const c: Obj = {};
    for (const [k, v] of Object.entries(o)) if (k !== 'metadata' && k !== 'kind' && k !== 'apiVersion' && !(ignoreStatus && k === 'status')) c[k] = v;
    return c;
  };
  return !deepEqual(pick(a), pick(b));
}
