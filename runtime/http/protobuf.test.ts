import { describe, expect, it } from 'vitest';
import { decodeProtobufObject } from './protobuf.ts';

// Bodies captured from kubectl 1.32 (`kubectl create configmap|namespace|secret generic`).
const captured: [string, { hex: string; want: object }][] = [
  ['ConfigMap', { hex: '6b3873000a0f0a0276311209436f6e6669674d617012230a110a017812001a0022002a0032003800420012060a016112016212060a01631201641a002200', want: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'b', c: 'd' } } }],
  ['Namespace', { hex: '6b3873000a0f0a02763112094e616d657370616365121b0a130a03666f6f12001a0022002a0032003800420012001a020a001a002200', want: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'foo' } } }],
  ['Secret', { hex: '6b3873000a0c0a027631120653656372657412230a110a017312001a0022002a0032003800420012060a016b1201761a064f70617175651a002200', want: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, type: 'Opaque', data: { k: 'dg==' } } }],
];

describe('protobuf request bodies', () => {
  it.each(captured)('decodes a %s', (_n, { hex, want }) => {
    expect(decodeProtobufObject(Buffer.from(hex, 'hex'), [])).toEqual(want);
  });

  it('answers 415 for a kind it cannot decode', () => {
    // k8s\0 + Unknown{typeMeta{apiVersion "v1", kind "Pod"}}
    const typeMeta = Buffer.concat([Buffer.from([0x0a, 2]), Buffer.from('v1'), Buffer.from([0x12, 3]), Buffer.from('Pod')]);
    const body = Buffer.concat([Buffer.from('k8s\0', 'latin1'), Buffer.from([0x0a, typeMeta.length]), typeMeta]);
    expect(() => decodeProtobufObject(body, ['application/json'])).toThrow(/unknown format/);
  });

  it('answers 400 for a body without the magic prefix', () => {
    expect(() => decodeProtobufObject(Buffer.from('{}'), [])).toThrow(/does not appear to be a protobuf message/);
  });
});
