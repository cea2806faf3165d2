// What a resource may add to the generic store: a small strategy module (runtime/registry/strategies/<kind>.ts).
// Every hook is optional; a resource without a strategy behaves as its descriptor and schema say.

import type { FieldError } from '../schema/types.ts';
import type { Obj } from '../api/object.ts';
import type { ObjectConverter } from '../object-storage/conversion.ts';
import type { DeleteOptions, DeleteResult } from './store-types.ts';
import type { Store } from './store.ts';

/** What a strategy's own delete may use: the resource's store (its server-side writes). */
export interface StrategyContext {
  store: Store;
}

/**
 * Another resource whose storage keys hold this resource's objects (upstream's cohabitating
 * resources: events.cluster.io Events are core v1 Events), at `apiVersion`, converted by `converter`.
 */
export interface SharedStorage {
  group: string;
  plural: string;
  apiVersion: string;
  converter: ObjectConverter;
}

export interface Strategy {
  /** Upstream's AllowCreateOnUpdate: a PUT of an object that does not exist creates it (Event). */
  allowCreateOnUpdate?: boolean;
  /** The objects live under another resource's keys and are converted to and from its version. */
  storedWith?: SharedStorage;
  /** Before defaulting and validation on create (after server-owned metadata is set). */
  prepareForCreate?(obj: Obj): void;
  /** Before defaulting and validation on update through the main endpoint. */
  prepareForUpdate?(obj: Obj, old: Obj): void;
  /**
   * On a /status write: `obj` arrives with status from the request and everything else from the
   * request too; the store has already restored spec (all but metadata and status) from `old`.
   * A strategy restores what else the type keeps (for example labels and annotations).
   */
  prepareForStatusUpdate?(obj: Obj, old: Obj): void;
  /**
   * On a /finalize write (Namespace): `obj` is the request's body with status restored from `old`
   * (upstream's finalize strategy); the main endpoint's prepareForUpdate does not run.
   */
  prepareForFinalizeUpdate?(obj: Obj, old: Obj): void;
  /**
   * Upstream's ShouldDeleteDuringUpdate beyond the generic rule (deletion requested, no
   * metadata.finalizers left): false keeps the object (Namespace: while spec.finalizers remain).
   */
  mayDeleteDuringUpdate?(obj: Obj): boolean;
  /** Validation beyond the schema on create. */
  validate?(obj: Obj): FieldError[];
  /** Validation beyond the schema on update. */
  validateUpdate?(obj: Obj, old: Obj): FieldError[];
  /** Field values for field selectors beyond metadata.name/namespace (default: dotted path lookup). */
  fieldValues?(obj: Obj): Record<string, string>;
  /**
   * Replaces the generic delete when present (Namespace: mark Terminating, then delete contents).
   * Called after preconditions and options are checked; `current` is the stored object.
   */
  delete?(ctx: StrategyContext, current: Obj, options: DeleteOptions): Promise<DeleteResult>;
}
