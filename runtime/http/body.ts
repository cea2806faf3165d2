// Request bodies: size limit (3 MiB, 413), Content-Type (JSON when absent; YAML; 415 otherwise),
// and decoding through runtime/http/decode (malformed, nested deeper than upstream's limit, numbers
// out of range, alias bombs: 400 with what and where, never the body's text; duplicate keys per
// fieldValidation).

import type { IncomingMessage } from 'node:http';
import { ApiError } from '../errors/api-error.ts';
import { isObj } from '../api/object.ts';
import { type Decoded, decodeJson, decodeYaml, looksLikeJson } from './decode/decode.ts';
import { OFFLOAD_MIN_BYTES, offloadYaml } from './decode/yaml-offload.ts';
import { DecodeError } from './decode/decode-error.ts';
import { type FieldValidationDirective, handleDuplicates, jsonDuplicateErrors, strictDecodingError, yamlDuplicateError } from './decode/duplicate-fields.ts';
import { decodeProtobufObject, PROTOBUF } from './protobuf.ts';

export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export const BODY_TYPES = ['application/json', 'application/yaml'];

/**
 * Reads the whole body, refusing more than `limit` bytes with 413. A large YAML body is decoded on
 * a worker thread before this resolves (decode/yaml-offload.ts), so that the request's own decode
 * only takes the result.
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const read = readRawBody(req, limit);
  if (!YAML_TYPES.has(mediaType(req.headers['content-type']))) return read;
  return read.then(async (buf) => {
    // a large YAML body is decoded on a worker while the request waits; decodeYaml takes the result
    if (buf.length >= OFFLOAD_MIN_BYTES) {
      const text = buf.toString('utf8');
      if (!looksLikeJson(text)) await offloadYaml(text);
    }
    return buf;
  });
}

/** Request bodies that decodeYaml reads. */
const YAML_TYPES = new Set(['application/yaml', 'application/apply-patch+yaml']);

/** The body's bytes. Stream events rather than `for await`: the async iterator costs a measurable share of a small create. */
function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(ApiError.requestEntityTooLarge(`limit is ${limit}`));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (b: Buffer): void => {
      size += b.length;
      if (size > limit) {
        req.off('data', onData);
        req.resume();
        reject(ApiError.requestEntityTooLarge(`limit is ${limit}`));
        return;
      }
      chunks.push(b);
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.once('error', reject);
    req.once('aborted', () => reject(ApiError.badRequest('the request body was cut short')));
  });
}

/** The media type without parameters, lowercased; `application/json` when the header is absent. */
export function mediaType(header: string | undefined): string {
  if (!header || header.trim() === '') return 'application/json';
  return header.split(';')[0].trim().toLowerCase();
}

/** A decoded body: the value, duplicate keys (handled per fieldValidation) and the format they are worded in. */
export interface DecodedBody extends Decoded {
  format: 'json' | 'yaml';
}

/** Decodes JSON or YAML text (one YAML document); DecodeError (what and where, no source) on failure. */
export function decodeBody(text: string, type: 'json' | 'yaml'): DecodedBody {
  const decoded = type === 'json' ? decodeJson(text) : decodeYaml(text);
  return { ...decoded, format: type };
}

/** `<Kind> in version "<v>" cannot be handled as a <into>`: upstream's prefix once the body's kind is known. */
function cannotBeHandled(value: unknown, into: string | undefined): string {
  const o = isObj(value) ? value : {};
  const kind = typeof o.kind === 'string' && o.kind ? o.kind : (into ?? '');
  const apiVersion = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  return `${kind} in version ${JSON.stringify(apiVersion.slice(apiVersion.indexOf('/') + 1))} cannot be handled as a ${into ?? kind}`;
}

/** Upstream's 400 for an object body that does not decode (its quoted summary of the body left out). */
function objectDecodeError(e: DecodeError, into: string | undefined): ApiError {
  if (e.failure === 'number' && e.format === 'json') return ApiError.badRequest(`${cannotBeHandled(e.value, into)}: ${e.message}`);
  const cause = e.format === 'json' ? `couldn't get version/kind; json parse error: ${e.message}` : e.message;
  return ApiError.badRequest(into ? `the object provided is unrecognized (must be of type ${into}): ${cause}` : cause);
}

/**
 * Decodes an object body (create, update, DeleteOptions) from JSON, YAML or protobuf; 415 for
 * another type. `into` is the kind the route expects (it words the errors as upstream does).
 */
export function decodeObject(buf: Buffer, contentType: string | undefined, into?: string): DecodedBody {
  const t = mediaType(contentType);
  let kind: 'json' | 'yaml';
  if (t === 'application/json') kind = 'json';
  else if (t === 'application/yaml') kind = 'yaml';
  else if (t === PROTOBUF) return { value: decodeProtobufObject(buf, BODY_TYPES), duplicates: [], format: 'json' };
  else throw ApiError.unsupportedMediaType(BODY_TYPES);
  const text = buf.toString('utf8');
  if (text.trim() === '') throw ApiError.badRequest('Object \'Kind\' is missing in \'\'');
  let decoded: DecodedBody;
  try {
    decoded = decodeBody(text, kind);
  } catch (e) {
    if (e instanceof DecodeError) throw objectDecodeError(e, into);
    throw e;
  }
  const value = decoded.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw ApiError.badRequest(`couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  return decoded;
}

/** Decodes an object body and returns only the value (DeleteOptions, Scale). */
export function decodeObjectBody(buf: Buffer, contentType: string | undefined, into?: string): unknown {
  return decodeObject(buf, contentType, into).value;
}

/**
 * Duplicate keys of a create/update body per fieldValidation (upstream's strict decoding): Strict
 * 400 `<Kind> in version "<v>" cannot be handled as a <into>: strict decoding error: …`, Warn the
 * `Warning` texts returned, Ignore nothing.
 */
export function objectBodyWarnings(decoded: DecodedBody, directive: FieldValidationDirective, into: string): string[] {
  if (!decoded.duplicates.length) return [];
  const errors = decoded.format === 'json' ? jsonDuplicateErrors(decoded.duplicates) : [yamlDuplicateError(decoded.duplicates)];
  return handleDuplicates(errors, directive, (errs) => ApiError.badRequest(`${cannotBeHandled(decoded.value, into)}: ${strictDecodingError(errs)}`));
}
