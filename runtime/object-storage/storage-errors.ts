// The one place where storage errors become API errors.

import { isStorageError, type StorageError } from '../storage/interface.ts';
import { ApiError, type ResourceRef } from '../errors/api-error.ts';

export interface StorageErrorContext {
  resource: ResourceRef;
  name: string;
  /** The resourceVersion the client asked for (for Compacted and FutureRevision texts). */
  requestedRevision?: number;
  /** What is being done: a list answers Compacted differently from a get or a watch. */
  op?: 'get' | 'list' | 'watch' | 'write';
}

export function fromStorageError(e: unknown, ctx: StorageErrorContext): ApiError {
  if (e instanceof ApiError) return e;
  if (!isStorageError(e)) return ApiError.internal(e);
  const se: StorageError = e;
  switch (se.code) {
    case 'KeyExists':
      return ApiError.alreadyExists(ctx.resource, ctx.name);
    case 'Conflict':
      return ApiError.staleConflict(ctx.resource, ctx.name);
    case 'NotFound':
      return ApiError.notFound(ctx.resource, ctx.name);
    case 'Compacted':
      if (ctx.op === 'list') return ApiError.expired('The resourceVersion for the provided list is too old.');
      return ApiError.expired(`too old resource version: ${ctx.requestedRevision ?? se.revision ?? 0} (${se.compactedRevision ?? 0})`);
    case 'FutureRevision':
      return ApiError.timeout(`Too large resource version: ${ctx.requestedRevision ?? 0}, current: ${se.revision ?? 0}`, 1, [
        { reason: 'ResourceVersionTooLarge', message: 'Too large resource version' },
      ]);
    case 'Closed':
      return ApiError.serviceUnavailable('storage is shutting down');
    case 'Unavailable':
      // upstream answers an unreachable etcd with a retryable error; the message names no secret
      return ApiError.serviceUnavailable(se.message);
    case 'TooLarge':
      return ApiError.requestEntityTooLarge(se.message);
    case 'Invalid':
    default:
      return ApiError.internal(se);
  }
}
