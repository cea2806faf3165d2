import { describe, expect, it } from 'vitest';
import { splitCsvLine, TokenAuthenticator } from './auth.ts';

describe('static token file', () => {
  const a = TokenAuthenticator.fromCsv(['t1,alice,u1', 't2,bob,u2,"dev,ops"', ',skipped,u3', 't1,alice2,u1b', '', '# comment'].join('\n'));

  it.each([
    ['a known token', { authorization: 'Bearer t2' }, { name: 'bob', uid: 'u2', groups: ['dev', 'ops', 'system:authenticated'] }],
    ['the scheme in any case', { authorization: 'bearer t2' }, { name: 'bob', uid: 'u2', groups: ['dev', 'ops', 'system:authenticated'] }],
    ['a later duplicate wins', { authorization: 'Bearer t1' }, { name: 'alice2', uid: 'u1b', groups: ['system:authenticated'] }],
    ['no header: no credentials', {}, undefined],
    ['an empty token: no credentials', { authorization: 'Bearer ' }, undefined],
    ['an unknown token: rejected', { authorization: 'Bearer nope' }, null],
    ['another scheme: rejected', { authorization: 'Basic abc' }, null],
  ] as const)('%s', (_n, headers, want) => {
    expect(a.authenticate(headers)).toEqual(want);
  });

  it('skips rows with an empty token', () => {
    expect(a.size).toBe(2);
  });

  it('needs three columns', () => {
    expect(() => TokenAuthenticator.fromCsv('only,two')).toThrow(/at least 3 columns/);
  });

  it.each([
    ['plain', 'a,b,c', ['a', 'b', 'c']],
    ['quoted with commas', 'a,"b,c",d', ['a', 'b,c', 'd']],
    ['escaped quote', 'a,"b""c"', ['a', 'b"c']],
  ] as const)('splits CSV: %s', (_n, line, want) => {
    expect(splitCsvLine(line)).toEqual(want);
  });
});
