// Request bodies in `application/vnd.kubernetes.protobuf` for the few core kinds real kubectl
// binaries send that way (`kubectl create configmap|secret|namespace` use typed clients that
// encode protobuf). The envelope is upstream's: the magic `k8s\0`, then a runtime.Unknown
// {typeMeta{apiVersion, kind}, raw, contentEncoding, contentType} whose `raw` is the object in the
// field numbering of k8s.io/api core/v1 generated.proto. Only decoding, only these kinds; any other
// protobuf body keeps getting 415, and resource responses are never protobuf (clients send a JSON
// fallback). /openapi/v2 is the one protobuf answer (openapi-v2-protobuf.ts): kubectl's
// client-side validation asks for nothing else.

import { ApiError } from '../errors/api-error.ts';
import type { Obj } from '../api/object.ts';

export const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

export type Field = { no: number; wire: number; value: bigint | Buffer };

function readVarint(buf: Buffer, pos: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    if (pos >= buf.length) throw new Error('truncated varint');
    const b = buf[pos++];
    result |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [result, pos];
    shift += 7n;
    if (shift > 63n) throw new Error('varint too long');
  }
}

/**
 * One message's fields, read in a loop. Nested messages are only opened by the decoders below,
 * which follow the fixed kinds' schemas (at most four messages deep: Unknown, the object,
 * ObjectMeta, a map entry or Time), so no body can make decoding recurse deeper, however nested
 * its bytes are; an unknown field is skipped unread.
 */
export function fields(buf: Buffer): Field[] {
  const out: Field[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const [key, p1] = readVarint(buf, pos);
    pos = p1;
    const no = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) {
      const [v, p2] = readVarint(buf, pos);
      pos = p2;
      out.push({ no, wire, value: v });
    } else if (wire === 2) {
      const [len, p2] = readVarint(buf, pos);
      const end = p2 + Number(len);
      if (end > buf.length) throw new Error('truncated field');
      out.push({ no, wire, value: buf.subarray(p2, end) });
      pos = end;
    } else if (wire === 1) {
      pos += 8;
    } else if (wire === 5) {
      pos += 4;
    } else throw new Error(`unsupported wire type ${wire}`);
  }
  return out;
}

export const str = (f: Field): string => (f.value as Buffer).toString('utf8');
export const bytes = (f: Field): Buffer => f.value as Buffer;
export const int = (f: Field): number => Number(BigInt.asIntN(64, f.value as bigint));

function mapEntry(f: Field, valueAs: 'string' | 'base64'): [string, string] {
  let k = '';
  let v = '';
  for (const e of fields(bytes(f))) {
    if (e.no === 1) k = str(e);
    else if (e.no === 2) v = valueAs === 'string' ? str(e) : bytes(e).toString('base64');
  }
  return [k, v];
}

function time(f: Field): string | undefined {
  let seconds = 0;
  for (const e of fields(bytes(f))) if (e.no === 1) seconds = int(e);
  return seconds ? new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') : undefined;
}

/** ObjectMeta (generated.proto numbering); zero values are left out, as JSON omitempty does. */
export function objectMeta(buf: Buffer): Obj {
  const m: Obj = {};
  const labels: Record<string, string> = {};
  const annotations: Record<string, string> = {};
  const finalizers: string[] = [];
  for (const f of fields(buf)) {
    switch (f.no) {
      case 1:
      case 2:
      case 3:
      case 5:
      case 6: {
        const key = ({ 1: 'name', 2: 'generateName', 3: 'namespace', 5: 'uid', 6: 'resourceVersion' } as Record<number, string>)[f.no];
        if (str(f)) m[key] = str(f);
        break;
      }
      case 7:
        if (int(f)) m.generation = int(f);
        break;
      case 8: {
        const t = time(f);
        if (t) m.creationTimestamp = t;
        break;
      }
      case 11: {
        const [k, v] = mapEntry(f, 'string');
        labels[k] = v;
        break;
      }
      case 12: {
        const [k, v] = mapEntry(f, 'string');
        annotations[k] = v;
        break;
      }
      case 14:
        finalizers.push(str(f));
        break;
      default:
        break; // selfLink, deletion fields, ownerReferences and managedFields are server-owned or not sent by kubectl create
    }
  }
  if (Object.keys(labels).length) m.labels = labels;
  if (Object.keys(annotations).length) m.annotations = annotations;
  if (finalizers.length) m.finalizers = finalizers;
  return m;
}

function configMap(buf: Buffer): Obj {
  const o: Obj = {};
  const data: Record<string, string> = {};
  const binaryData: Record<string, string> = {};
  for (const f of fields(buf)) {
    if (f.no === 1) o.metadata = objectMeta(bytes(f));
    else if (f.no === 2) {
      const [k, v] = mapEntry(f, 'string');
      data[k] = v;
    } else if (f.no === 3) {
      const [k, v] = mapEntry(f, 'base64');
      binaryData[k] = v;
    } else if (f.no === 4) o.immutable = int(f) !== 0;
  }
  if (Object.keys(data).length) o.data = data;
  if (Object.keys(binaryData).length) o.binaryData = binaryData;
  return o;
}

function secret(buf: Buffer): Obj {
  const o: Obj = {};
  const data: Record<string, string> = {};
  const stringData: Record<string, string> = {};
  for (const f of fields(buf)) {
    if (f.no === 1) o.metadata = objectMeta(bytes(f));
    else if (f.no === 2) {
      const [k, v] = mapEntry(f, 'base64');
      data[k] = v;
    } else if (f.no === 3) {
      if (str(f)) o.type = str(f);
    } else if (f.no === 4) {
      const [k, v] = mapEntry(f, 'string');
      stringData[k] = v;
    } else if (f.no === 5) o.immutable = int(f) !== 0;
  }
  if (Object.keys(data).length) o.data = data;
  if (Object.keys(stringData).length) o.stringData = stringData;
  return o;
}

function namespace(buf: Buffer): Obj {
  const o: Obj = {};
  for (const f of fields(buf)) {
    if (f.no === 1) o.metadata = objectMeta(bytes(f));
    else if (f.no === 2) {
      const finalizers = fields(bytes(f))
        .filter((e) => e.no === 1)
        .map(str);
      if (finalizers.length) o.spec = { finalizers };
    }
  }
  return o;
}

export type ProtobufDecoders = Record<string, (buf: Buffer) => Obj>;

const DECODERS: ProtobufDecoders = {
  'v1/ConfigMap': configMap,
  'v1/Secret': secret,
  'v1/Namespace': namespace,
};

/** True when this server can decode a protobuf body of the given apiVersion/kind. */
export function protobufKinds(): string[] {
  return Object.keys(DECODERS);
}

/** Decodes a protobuf request body; 415 for a kind this server cannot decode (the core kinds, or `decoders`), 400 when malformed. */
export function decodeProtobufObject(buf: Buffer, accepted: readonly string[], decoders: ProtobufDecoders = DECODERS): Obj {
  if (buf.length < 4 || !buf.subarray(0, 4).equals(MAGIC)) throw ApiError.badRequest('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  try {
    let apiVersion = '';
    let kind = '';
    let raw: Buffer | undefined;
    for (const f of fields(buf.subarray(4))) {
      if (f.no === 1) {
        for (const t of fields(bytes(f))) {
          if (t.no === 1) apiVersion = str(t);
          else if (t.no === 2) kind = str(t);
        }
      } else if (f.no === 2) raw = bytes(f);
    }
    const decode = decoders[`${apiVersion}/${kind}`];
    if (!decode) throw ApiError.unsupportedMediaType(accepted);
    const obj = decode(raw ?? Buffer.alloc(0));
    return { apiVersion, kind, ...obj };
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw ApiError.badRequest(`unable to decode protobuf body: ${(e as Error).message}`);
  }
}
