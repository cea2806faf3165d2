// The generic store: one implementation for every resource (upstream's registry/generic/registry
// Store). A resource differs only by its ResourceDescriptor, its compiled validator and an optional
// strategy (api-conventions 2 to 5). Each verb lives in verbs/, the pure steps before a write in
// rest/, and keys, codec, conversion and the guaranteed update in runtime/object-storage/.

import { AdmissionChain } from '../admission/chain.ts';
import type { Obj } from '../api/object.ts';
import type { ResourceRef } from '../errors/api-error.ts';
import type { ResourceDescriptor, Subresource } from '../api/resource-descriptor.ts';
import { ObjectStorage } from '../object-storage/object-storage.ts';
import type { CompiledValidator, Schema } from '../schema/types.ts';
import type { Storage } from '../storage/interface.ts';
import { ignoredFields } from './rest/managed-fields.ts';
import { patchedBy, replacedBy } from './rest/updated-object.ts';
import type { Selection } from './selection.ts';
import type {
  DeleteOptions,
  DeleteResult,
  GetParams,
  ListParams,
  ListResult,
  StoreOptions,
  UpdatedObjectInfo,
  UpdateOptions,
  WatchSink,
  WatchStream,
  WriteOptions,
  WriteResult,
} from './store-types.ts';
import type { Strategy } from './strategy.ts';
import type { StoreContext } from './verbs/context.ts';
import { create } from './verbs/create.ts';
import { deleteCollection, deleteObject, deleteOne } from './verbs/delete.ts';
import { get, RenderedGets } from './verbs/get.ts';
import { list } from './verbs/list.ts';
import { update } from './verbs/update.ts';
import { validateWatch, watch } from './verbs/watch.ts';

export type * from './store-types.ts';

/** `apiVersion` of a descriptor: `v1` for core, `<group>/<version>` otherwise. */
export function apiVersionOf(d: ResourceDescriptor): string {
  return d.group ? `${d.group}/${d.version}` : d.version;
}

export interface StoreWiring {
  /** The admission chain every write passes (the registry's; default: none). */
  admission?: AdmissionChain;
  /** The server's feature gates (WatchList decides whether sendInitialEvents is allowed). */
  featureGates?: Record<string, boolean>;
}

export class Store implements StoreContext {
  readonly resource: ResourceRef;
  readonly apiVersion: string;
  readonly hasStatus: boolean;
  readonly objects: ObjectStorage;
  readonly admission: AdmissionChain;
  readonly featureGates: Record<string, boolean>;
  readonly shapes: Record<string, Schema> | undefined;
  readonly bookmarkIntervalMs: number | undefined;
  private readonly renderedGets = new RenderedGets();

  constructor(
    readonly storage: Storage,
    readonly descriptor: ResourceDescriptor,
    readonly validator: CompiledValidator,
    readonly strategy: Strategy = {},
    options: StoreOptions & StoreWiring = {},
  ) {
    this.resource = { group: descriptor.group, plural: descriptor.plural };
    this.apiVersion = apiVersionOf(descriptor);
    this.hasStatus = descriptor.subresources.includes('status');
    this.shapes = options.shapes;
    this.bookmarkIntervalMs = options.bookmarkIntervalMs;
    this.admission = options.admission ?? new AdmissionChain();
    this.featureGates = options.featureGates ?? {};
    // objects kept under another resource's keys (strategy.storedWith) are read and written through its converter
    const stored = strategy.storedWith;
    this.objects = new ObjectStorage(storage, {
      group: stored?.group ?? descriptor.group,
      plural: stored?.plural ?? descriptor.plural,
      kind: descriptor.kind,
      namespaced: descriptor.namespaced,
      apiVersion: this.apiVersion,
      storageApiVersion: stored?.apiVersion ?? options.storageApiVersion,
      converter: stored?.converter ?? options.converter,
      futureRevisionWaitMs: options.futureRevisionWaitMs,
    });
  }

  get converts(): boolean {
    return this.objects.converts;
  }

  refuseOversized(obj: Obj, bodyBytes: number | undefined): void {
    this.objects.refuseOversized(obj, bodyBytes);
  }

  key(namespace: string | undefined, name: string): string {
    return this.objects.key(namespace, name);
  }

  prefix(namespace: string | undefined): string {
    return this.objects.prefix(namespace);
  }

  /** A stored value as written (no conversion), stamped with its revision. */
  decode(value: string, revision: number): Obj {
    return this.objects.decode(value, revision);
  }

  /** Fields an endpoint resets and never tracks: status on the main endpoint, spec on /status. */
  ignoredFields(subresource?: Subresource): string[][] {
    return ignoredFields(this, subresource);
  }

  get(namespace: string | undefined, name: string, params: GetParams = {}): Promise<Obj> {
    return get(this, namespace, name, params);
  }

  /** GET as the JSON text of a plain object (cached per revision). */
  getJson(namespace: string | undefined, name: string, params: GetParams = {}): Promise<string> {
    return this.renderedGets.getJson(this, namespace, name, params);
  }

  list(namespace: string | undefined, params: ListParams = {}): Promise<ListResult> {
    return list(this, namespace, params);
  }

  create(namespace: string | undefined, body: Obj, opts: WriteOptions & { setsManagedFields?: boolean } = {}): Promise<WriteResult> {
    return create(this, namespace, body, opts);
  }

  /** PUT (main endpoint, /status or /finalize) of a whole body, or any UpdatedObjectInfo (patches, apply). */
  update(namespace: string | undefined, name: string, body: Obj | UpdatedObjectInfo, opts: UpdateOptions = {}): Promise<WriteResult> {
    const info = typeof (body as Partial<UpdatedObjectInfo>).updatedObject === 'function' ? (body as UpdatedObjectInfo) : replacedBy(body as Obj);
    return update(this, namespace, name, info, opts);
  }

  /** An update by a function of the current object (the server's own patches, and tests). */
  patch(namespace: string | undefined, name: string, apply: (current: Obj) => Obj, opts: UpdateOptions = {}): Promise<WriteResult> {
    return update(this, namespace, name, patchedBy(apply), opts);
  }

  delete(namespace: string | undefined, name: string, options: DeleteOptions = {}): Promise<DeleteResult> {
    const strategyDelete = this.strategy.delete;
    return deleteOne(this, namespace, name, options, strategyDelete && ((current, o) => strategyDelete({ store: this }, current, o)));
  }

  /** The generic delete of one read object: mark (finalizers) or remove. */
  deleteObject(obj: Obj, rev: number, options: DeleteOptions): Promise<DeleteResult> {
    return deleteObject(this, obj, rev, options);
  }

  /** DELETE on the collection: the matched items as they were, and the admission warnings. */
  deleteCollection(namespace: string | undefined, params: ListParams, options: DeleteOptions): Promise<{ list: ListResult; warnings: string[] }> {
    return deleteCollection(this, namespace, params, options, (ns, name) => this.delete(ns, name, options));
  }

  validateWatch(params: ListParams): Selection {
    return validateWatch(this, params);
  }

  /**
   * Starts a watch. Throws ApiError for a bad request (before anything is streamed); a compacted
   * start point is reported in-stream as an ERROR event (410 Expired), as upstream does.
   */
  watch(namespace: string | undefined, params: ListParams, sink: WatchSink): Promise<WatchStream> {
    return watch(this, namespace, params, sink);
  }

  /**
   * A server-side write (no validation, no server-owned field handling): compare-and-swap of `obj`
   * on revision `rev`. For strategies that change what clients may not (deletion marks).
   */
  writeServerUpdate(obj: Obj, rev: number): Promise<Obj> {
    return this.objects.writeAt(obj, rev);
  }
}
