// PATCH bodies (api-conventions 6): RFC 6902 JSON patch (fast-json-patch) and RFC 7386 JSON merge
// patch. Strategic merge patch comes from runtime/patch (applyStrategicMergePatch).

import fastJsonPatch from 'fast-json-patch';
import { ApiError } from '../errors/api-error.ts';
import { isObj, type Obj } from '../api/object.ts';
import { decodeJson, decodeYaml } from './decode/decode.ts';
import { DecodeError } from './decode/decode-error.ts';
import { type FieldValidationDirective, handleDuplicates, jsonDuplicateErrors, strictDecodingError, yamlDuplicateError } from './decode/duplicate-fields.ts';

const { applyPatch, JsonPatchError } = fastJsonPatch;

export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH = 'application/apply-patch+yaml';

export const MAX_JSON_PATCH_OPERATIONS = 10000;

/** A patch body decoded once: the value, and the duplicate-key warnings fieldValidation=Warn asks for. */
export interface DecodedPatch {
  value: unknown;
  warnings: string[];
}

/** Upstream's 422 for strict-decoding findings in a JSON, merge or strategic merge patch (the patched object it quotes left out). */
function strictPatchRejected(errors: readonly string[]): ApiError {
  return ApiError.invalid({ group: '', kind: '' }, '', [{ field: 'patch', reason: 'FieldValueInvalid', message: `Invalid value: ${strictDecodingError(errors)}` }]);
}

/**
 * Decodes a JSON patch, merge patch or strategic merge patch body (400 `error decoding patch: …`
 * when malformed, too deep or out of range); duplicate keys per fieldValidation, worded as
 * upstream (`json patch duplicate field "[0].op"` for JSON patches).
 */
export function decodeJsonPatchBody(text: string, type: string, directive: FieldValidationDirective = 'Ignore'): DecodedPatch {
  let decoded;
  try {
    decoded = decodeJson(text);
  } catch (e) {
    if (e instanceof DecodeError) throw ApiError.badRequest(`error decoding patch: ${e.message}`);
    throw e;
  }
  const errors = jsonDuplicateErrors(decoded.duplicates, type === JSON_PATCH ? 'json patch ' : '');
  return { value: decoded.value, warnings: handleDuplicates(errors, directive, strictPatchRejected) };
}

/**
 * Decodes a server-side apply body (YAML, or JSON as kubectl sends it): 400 `error decoding patch:
 * …`; duplicate keys as go-yaml's strict error (Strict: 400 `error strict decoding patch: …`).
 */
export function decodeApplyPatchBody(text: string, directive: FieldValidationDirective): DecodedPatch {
  let decoded;
  try {
    decoded = decodeYaml(text);
  } catch (e) {
    if (e instanceof DecodeError) throw ApiError.badRequest(`error decoding patch: ${e.format === 'yaml' ? 'error converting YAML to JSON: ' : ''}${e.message}`);
    throw e;
  }
  const errors = decoded.duplicates.length ? [`error converting YAML to JSON: ${yamlDuplicateError(decoded.duplicates)}`] : [];
  return { value: decoded.value, warnings: handleDuplicates(errors, directive, (errs) => ApiError.badRequest(`error strict decoding patch: ${errs[0]}`)) };
}

function parseJson(text: string): unknown {
  return decodeJsonPatchBody(text, MERGE_PATCH).value;
}

/** The generic 422 upstream answers for a JSON patch operation that fails (including `test`). */
function patchRejected(detail: string): ApiError {
  return new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request', { causes: [{ message: detail }] });
}

export function applyJsonPatch(current: Obj, text: string | DecodedPatch): Obj {
  const ops = typeof text === 'string' ? parseJson(text) : text.value;
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

export function applyMergePatch(current: Obj, text: string | DecodedPatch): Obj {
  const patch = typeof text === 'string' ? parseJson(text) : text.value;
  if (!isObj(patch)) throw ApiError.badRequest('json: cannot unmarshal the patch into an object');
  return mergePatch(current, patch) as Obj;
}
