// PATCH bodies (api-conventions 6): RFC 6902 JSON patch (fast-json-patch) and RFC 7386 JSON merge
// patch. Strategic merge patch comes from runtime/patch (applyStrategicMergePatch).

import fastJsonPatch from 'fast-json-patch';
import { ApiError } from '../errors/api-error.ts';
import { isObj, type Obj } from '../registry/object.ts';

const { applyPatch, JsonPatchError } = fastJsonPatch;

export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH = 'application/apply-patch+yaml';

export const MAX_JSON_PATCH_OPERATIONS = 10000;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw ApiError.badRequest(`error decoding patch: ${(e as Error).message}`);
  }
}

/** The generic 422 upstream answers for a JSON patch operation that fails (including `test`). */
function patchRejected(detail: string): ApiError {
  return new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request', { causes: [{ message: detail }] });
}

export function applyJsonPatch(current: Obj, text: string): Obj {
  const ops = parseJson(text);
  if (!Array.isArray(ops)) throw ApiError.badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  if (ops.length > MAX_JSON_PATCH_OPERATIONS) {
    throw ApiError.requestEntityTooLarge(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${ops.length}`);
  }
  for (const op of ops) {
    if (!isObj(op) || typeof op.op !== 'string' || typeof op.path !== 'string') throw ApiError.badRequest('the JSON patch has an operation without "op" or "path"');
  }
  try {
    const result = applyPatch(current, ops as fastJsonPatch.Operation[], true, false).newDocument as unknown;
    if (!isObj(result)) throw patchRejected('the patch does not produce an object');
    return result;
  } catch (e) {
    if (e instanceof JsonPatchError) {
      if (e.name === 'OPERATION_OP_INVALID' || e.name === 'OPERATION_PATH_INVALID' || e.name === 'OPERATION_VALUE_REQUIRED' || e.name === 'OPERATION_FROM_REQUIRED') {
        throw ApiError.badRequest(`invalid JSON patch: ${e.message.split('\n')[0]}`);
      }
      throw patchRejected(e.message.split('\n')[0]);
    }
    throw e;
  }
}

/** RFC 7386: objects merge recursively, null deletes, anything else (arrays too) replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObj(patch)) return patch;
  const out: Obj = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

export function applyMergePatch(current: Obj, text: string): Obj {
  const patch = parseJson(text);
  if (!isObj(patch)) throw ApiError.badRequest('json: cannot unmarshal the patch into an object');
  return mergePatch(current, patch) as Obj;
}
