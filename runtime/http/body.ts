// Request bodies: size limit (3 MiB, 413), Content-Type (JSON when absent; YAML; 415 otherwise),
// and decoding (malformed: 400).

import type { IncomingMessage } from 'node:http';
import { parseAllDocuments } from 'yaml';
import { ApiError } from '../errors/api-error.ts';
import { decodeProtobufObject, PROTOBUF } from './protobuf.ts';

export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export const BODY_TYPES = ['application/json', 'application/yaml'];

/**
 * Reads the whole body, refusing more than `limit` bytes with 413. Stream events rather than
 * `for await`: the async iterator costs a measurable share of a small create.
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
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

/** Decodes JSON or YAML text into a value; a YAML stream must hold exactly one document. */
export function decodeText(text: string, type: 'json' | 'yaml'): unknown {
  if (type === 'json') {
    try {
      return JSON.parse(text);
    } catch (e) {
      throw ApiError.badRequest(`json: ${(e as Error).message}`);
    }
  }
  const docs = parseAllDocuments(text, { uniqueKeys: false });
  if (!Array.isArray(docs)) throw ApiError.badRequest('yaml: empty document');
  const real = docs.filter((d) => d.contents !== null || d.errors.length);
  if (real.length === 0) return null;
  const doc = real[0];
  if (doc.errors.length) throw ApiError.badRequest(`yaml: ${doc.errors[0].message}`);
  return doc.toJS({ maxAliasCount: 100 });
}

/** Decodes an object body (create, update, DeleteOptions) from JSON or YAML; 415 for another type. */
export function decodeObjectBody(buf: Buffer, contentType: string | undefined): unknown {
  const t = mediaType(contentType);
  let kind: 'json' | 'yaml';
  if (t === 'application/json') kind = 'json';
  else if (t === 'application/yaml') kind = 'yaml';
  else if (t === PROTOBUF) return decodeProtobufObject(buf, BODY_TYPES);
  else throw ApiError.unsupportedMediaType(BODY_TYPES);
  const text = buf.toString('utf8');
  if (text.trim() === '') throw ApiError.badRequest('Object \'Kind\' is missing in \'\'');
  const value = decodeText(text, kind);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw ApiError.badRequest(`couldn't get version/kind; json parse error: json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  return value;
}
