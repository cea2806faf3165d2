// Protobuf bodies cannot make decoding recurse: nesting is bounded by the fixed kinds' schemas.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../errors/api-error.ts';
import { decodeProtobufObject } from '../protobuf.ts';

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

/** `levels` length-delimited messages nested in field `no`, built outside-in without copying. */
function nested(no: number, levels: number): Buffer {
  const lengths = [0];
  for (let i = 1; i <= levels; i++) lengths.push(lengths[i - 1] + 1 + varint(lengths[i - 1]).length);
  const bytes: number[] = [];
  for (let i = levels; i >= 1; i--) bytes.push((no << 3) | 2, ...varint(lengths[i - 1]));
  return Buffer.from(bytes);
}

function field(no: number, payload: Buffer): Buffer {
  return Buffer.concat([Buffer.from([(no << 3) | 2, ...varint(payload.length)]), payload]);
}

function envelope(kind: string, raw: Buffer): Buffer {
  const typeMeta = Buffer.concat([field(1, Buffer.from('v1')), field(2, Buffer.from(kind))]);
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), field(1, typeMeta), field(2, raw)]);
}

describe('protobuf bodies nested deeply', () => {
  const meta = field(1, field(1, Buffer.from('x')));
  const cases: [string, Buffer, object | RegExp][] = [
    ['an unknown field of the object holding 100,000 nested messages', envelope('ConfigMap', Buffer.concat([meta, field(9, nested(1, 100_000))])), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }],
    ['ObjectMeta fields the decoder skips, nested 100,000 deep', envelope('Secret', field(1, Buffer.concat([field(1, Buffer.from('s')), field(13, nested(13, 100_000))]))), { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }],
    ['a label entry whose value is nested bytes (read as a string, not opened)', envelope('ConfigMap', field(1, field(11, Buffer.concat([field(1, Buffer.from('k')), field(2, nested(2, 1_000))])))), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { labels: { k: expect.any(String) } } }],
    ['a group wire type (3) is refused, not followed', envelope('ConfigMap', Buffer.from([(5 << 3) | 3])), /unsupported wire type 3/],
  ];
  it.each(cases)('%s', (_n, body, want) => {
    if (want instanceof RegExp) {
      let caught: unknown;
      try {
        decodeProtobufObject(body, []);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(ApiError);
      expect((caught as ApiError).code).toBe(400);
      expect((caught as ApiError).message).toMatch(want);
      return;
    }
    expect(decodeProtobufObject(body, [])).toEqual(want);
  });
});
