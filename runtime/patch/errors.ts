// Typed errors of runtime/patch. Each knows the upstream Status it becomes (toApiError()).

import { ApiError, type StatusCause } from '../errors/api-error.ts';

/**
 * A strategic-merge-patch failure, classified as upstream's handlers/patch.go
 * (interpretStrategicMergePatchError) does:
 * - `BadRequest` (400): invalid JSON document, bad `$deleteFromPrimitiveList`, `$retainKeys`,
 *   `$setElementOrder` format, unsupported format;
 * - `Invalid` (422, generic "the server rejected our request due to an error in our request",
 *   the text as an `UnexpectedServerResponse` cause): lists of lists, patch content not matching retainKeys;
 * - `Internal` (500 with an empty reason, the raw text): every other error (missing merge key,
 *   unknown `$patch` type, mismatched element types, ...).
 */
export type StrategicMergePatchErrorKind = 'BadRequest' | 'Invalid' | 'Internal';

export class StrategicMergePatchError extends Error {
  constructor(
    message: string,
    readonly kind: StrategicMergePatchErrorKind,
  ) {
    super(message);
    this.name = 'StrategicMergePatchError';
  }

  get code(): number {
    return this.kind === 'BadRequest' ? 400 : this.kind === 'Invalid' ? 422 : 500;
  }

  toApiError(): ApiError {
    switch (this.kind) {
      case 'BadRequest':
        return ApiError.badRequest(this.message);
      case 'Invalid':
        return new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request', {
          causes: [{ reason: 'UnexpectedServerResponse', message: this.message }],
        });
      default:
        return new ApiError(500, '', this.message);
    }
  }
}

// The fixed texts of upstream's mergepatch package.
export const ErrBadJSONDoc = 'invalid JSON document';
export const ErrNoListOfLists = 'lists of lists are not supported';
export const ErrBadPatchFormatForPrimitiveList = 'invalid patch format of primitive list';
export const ErrBadPatchFormatForRetainKeys = 'invalid patch format of retainKeys';
export const ErrBadPatchFormatForSetElementOrderList = 'invalid patch format of setElementOrder list';
export const ErrPatchContentNotMatchRetainKeys = "patch content doesn't match retainKeys list";
export const ErrUnsupportedStrategicMergePatchFormat = 'strategic merge patch format is not supported';

/** One conflicting field of an apply: the field path (`.spec.x`) and the manager description. */
export interface ApplyConflict {
  /** Upstream's printed manager: `"mgr"`, `"mgr" with subresource "status"`, `"mgr" using v1`. */
  manager: string;
  /** structured-merge-diff path text: `.spec.drivers[name="a"].nodeID`. */
  field: string;
}

/** 409 Conflict of server-side apply (apimachinery NewApplyConflict): causes only in details. */
export class ApplyConflictError extends Error {
  readonly code = 409;
  readonly causes: StatusCause[];

  constructor(
    message: string,
    readonly conflicts: ApplyConflict[],
  ) {
    super(message);
    this.name = 'ApplyConflictError';
    this.causes = conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${c.manager}`, field: c.field }));
  }

  toApiError(): ApiError {
    return new ApiError(409, 'Conflict', this.message, { causes: this.causes });
  }
}

/**
 * Other failures of apply / managed fields, with the Status they become:
 * 400 BadRequest (`metadata.managedFields must be nil`, wrong apiVersion), or 500 with the raw
 * text (an object that does not fit its schema, e.g. a map-list element without its key).
 */
export class ManagedFieldsError extends Error {
  constructor(
    message: string,
    readonly kind: 'BadRequest' | 'Internal',
  ) {
    super(message);
    this.name = 'ManagedFieldsError';
  }

  get code(): number {
    return this.kind === 'BadRequest' ? 400 : 500;
  }

  toApiError(): ApiError {
    return this.kind === 'BadRequest' ? ApiError.badRequest(this.message) : new ApiError(500, '', this.message);
  }
}
