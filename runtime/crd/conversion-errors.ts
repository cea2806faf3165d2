// How a failed custom resource conversion reaches the client.
import { ApiError } from '../errors/api-error.ts';

/**
 * A conversion failure as upstream renders it on reads and writes: the converter's error is a plain
 * Go error, so the Status is 500 with the text as message and no reason. (Watch streams wrap it as
 * an InternalError instead: see Store.watch.)
 */
export function conversionFailure(message: string): ApiError {
  return new ApiError(500, '', message);
}
