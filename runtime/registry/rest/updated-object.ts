// The UpdatedObjectInfo of each way to change an object (upstream's rest.DefaultUpdatedObjectInfo
// and the patcher's): a PUT body, a patch applied to the current object.

import { deepClone, isObj, meta, metaOf, type Obj } from '../../api/object.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { UpdatedObjectInfo } from '../store-types.ts';

/**
 * A PUT: the body replaces the object. A retry after a concurrent write starts again from the
 * body as sent (a body with a resourceVersion then answers 409, as upstream's precondition does).
 */
export function replacedBy(body: Obj): UpdatedObjectInfo {
  // the steps change the body: a retry needs it as sent, kept only for unconditional updates (with a resourceVersion a retry is a 409 anyway)
  const pristine = metaOf(body).resourceVersion ? undefined : JSON.stringify(body);
  let first = true;
  return {
    updatedObject: () => {
      if (first) {
        first = false;
        return body;
      }
      return pristine === undefined ? body : (JSON.parse(pristine) as Obj);
    },
  };
}

/**
 * A patch: `apply` gets a copy of the current object; the result takes the current
 * resourceVersion unless the patch set one (then the update is conditional on it).
 */
export function patchedBy(apply: (current: Obj) => unknown): UpdatedObjectInfo {
  return {
    updatedObject: (current) => {
      if (!current) throw ApiError.internal(new Error('a patch needs an existing object'));
      const patched = apply(deepClone(current));
      if (!isObj(patched)) throw ApiError.badRequest('the patch must produce an object');
      const pm = meta(patched);
      if (pm.resourceVersion === undefined || pm.resourceVersion === '' || pm.resourceVersion === null) pm.resourceVersion = metaOf(current).resourceVersion;
      return patched;
    },
  };
}
