import { describe, expect, it } from 'vitest';
import { decodeContinue, encodeContinue } from './continue-token.ts';

describe('continue tokens', () => {
  it.each([
    ['simple', 12, 'ns/name\u0000'],
    ['unicode key', 7, 'ns/é\u0000'],
    ['inconsistent continuation', -1, 'x\u0000'],
  ] as const)('round-trips %s', (_n, rv, start) => {
    expect(decodeContinue(encodeContinue(rv, start))).toEqual({ rv, start });
  });

  const bad: [string, string, RegExp][] = [
    ['not base64', '!!!', /illegal base64 data/],
    ['not JSON', Buffer.from('nope').toString('base64url'), /illegal base64 data/],
    ['wrong version', Buffer.from(JSON.stringify({ v: 'x', rv: 1, start: 'a' })).toString('base64url'), /does not recognize this encoding/],
    ['bad rv', Buffer.from(JSON.stringify({ v: 'meta.cluster.io/v1', rv: 0, start: 'a' })).toString('base64url'), /incorrect encoded start resourceVersion/],
    ['empty start', Buffer.from(JSON.stringify({ v: 'meta.cluster.io/v1', rv: 3, start: '' })).toString('base64url'), /encoded start key empty/],
    ['escaping start', Buffer.from(JSON.stringify({ v: 'meta.cluster.io/v1', rv: 3, start: '../x' })).toString('base64url'), /inside the list/],
  ];
  it.each(bad)('rejects %s', (_n, token, message) => {
    expect(() => decodeContinue(token)).toThrow(message);
  });
});
