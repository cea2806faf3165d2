// What the generic Store's verbs take and answer (upstream's rest options and results).

import type { AdmissionRequest } from '../admission/chain.ts';
import type { Obj } from '../api/object.ts';
import type { Subresource } from '../api/resource-descriptor.ts';
import type { ApiError, Status } from '../errors/api-error.ts';
import type { ObjectConverter } from '../object-storage/conversion.ts';
import type { Schema } from '../schema/types.ts';

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

export interface WriteOptions {
  dryRun?: boolean;
  fieldValidation?: FieldValidation;
  /** The manager recorded in managedFields (already defaulted from the User-Agent). */
  fieldManager?: string;
  /** The client's request, for admission (webhooks); absent for the server's own writes. */
  request?: AdmissionRequest;
  /** Bytes of the request body the object was decoded from (POST, PUT): only an object from a body over the storage's bound is measured before the costly steps. */
  bodyBytes?: number;
}

export interface UpdateOptions extends WriteOptions {
  subresource?: Subresource;
  /** A missing object is created (server-side apply; upstream's forceAllowCreate). */
  allowCreate?: boolean;
}

/**
 * The new state of an update, computed from the current one (upstream's rest.UpdatedObjectInfo):
 * the body of a PUT, a patch applied, an apply configuration merged. Called again when another
 * writer got in between.
 */
export interface UpdatedObjectInfo {
  /** The new object from the current one (read-only: copy what you change; undefined: absent, when the update may create). */
  updatedObject(current: Obj | undefined): Obj;
  /** True when updatedObject sets metadata.managedFields itself (server-side apply); otherwise the write is recorded as an Update by the field manager. */
  readonly setsManagedFields?: boolean;
}

export interface DeleteOptions {
  dryRun?: boolean;
  gracePeriodSeconds?: number;
  propagationPolicy?: string;
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
  /** The client's request, for admission (webhooks); absent for the server's own deletes. */
  request?: AdmissionRequest;
}

export interface WriteResult {
  /** The object as written; its watch event shares its parts (runtime/object-storage): read it, never change it. */
  object: Obj;
  warnings: string[];
  /** True when an update with allowCreate created the object (201). */
  created?: boolean;
}

export type DeleteResult = (
  | { kind: 'object'; object: Obj; /** true when finalizers keep the object (deletionTimestamp set) */ deferred: boolean }
  | { kind: 'status'; status: Status }
) & { /** admission warnings */ warnings?: string[] };

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
