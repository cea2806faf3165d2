// cel-go's encoders extension (ext.Encoders): base64.encode(bytes) and base64.decode(string).
// Kubernetes does not enable it; environments opt into it by name (the cel-spec conformance run does).

import type { CelRegistrar } from '../registrar.ts';
import { celError } from '../values.ts';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Standard base64, padding optional (cel-go falls back to the unpadded decoder). */
function decodeBase64(s: string): Uint8Array {
  if (!BASE64.test(s) || s.replace(/=+$/, '').length % 4 === 1) throw celError('base64.decode() illegal base64 data');
  return new Uint8Array(Buffer.from(s, 'base64'));
}

export function encodersLibrary(r: CelRegistrar): void {
  const ns = r.namespace('base64');
  r.fn(`${ns}.encode(bytes): string`, ((_n: unknown, b: Uint8Array) => Buffer.from(b).toString('base64')) as never);
  r.fn(`${ns}.decode(string): bytes`, ((_n: unknown, s: string) => decodeBase64(s)) as never);
}
