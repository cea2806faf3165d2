import { describe, expect, it } from 'vitest';
import { findJsonSyntaxError } from './json-syntax.ts';

const deep = (n: number): string => '['.repeat(n) + ']'.repeat(n);

// text, expected error (message, offset, failure) or undefined when valid
const cases: [string, string, { message: string; offset: number; failure: 'syntax' | 'depth' } | undefined][] = [
  ['object', '{"a": [1, -2.5e+3, true, false, null, "x\\u00e9\\n"], "b": {}}', undefined],
  ['empty array with space', '[ ]', undefined],
  ['scalar with space around', '  42 ', undefined],
  ['10,000 deep', deep(10_000), undefined],
  ['10,001 deep', deep(10_001), { message: "invalid character '[' exceeded max depth", offset: 10_000, failure: 'depth' }],
  ['empty input', '', { message: 'unexpected end of JSON input', offset: 0, failure: 'syntax' }],
  ['cut short in a string', '{"a":"hunter2', { message: 'unexpected end of JSON input', offset: 13, failure: 'syntax' }],
  ['bare word value (letter not shown)', '{"a": hunter2}', { message: 'invalid character looking for beginning of value', offset: 6, failure: 'syntax' }],
  ['trailing comma in object', '{"a":1,}', { message: "invalid character '}' looking for beginning of object key string", offset: 7, failure: 'syntax' }],
  ['missing colon', '{"a" 1}', { message: 'invalid character after object key', offset: 5, failure: 'syntax' }],
  ['missing comma', '{"a":1 "b":2}', { message: `invalid character '"' after object key:value pair`, offset: 7, failure: 'syntax' }],
  ['array element', '[1 2]', { message: 'invalid character after array element', offset: 3, failure: 'syntax' }],
  ['after top-level value', '{} {}', { message: "invalid character '{' after top-level value", offset: 3, failure: 'syntax' }],
  ['control character in string', '"a\u0001"', { message: "invalid character '\\u0001' in string literal", offset: 2, failure: 'syntax' }],
  ['bad escape (letter not shown)', '"\\q"', { message: 'invalid character in string escape code', offset: 2, failure: 'syntax' }],
  ['bad unicode escape', '"\\u12x4"', { message: 'invalid character in \\u hexadecimal character escape', offset: 5, failure: 'syntax' }],
  ['leading zero', '01', { message: 'invalid character after top-level value', offset: 1, failure: 'syntax' }],
  ['dot without digits', '1.', { message: 'unexpected end of JSON input', offset: 2, failure: 'syntax' }],
  ['bad exponent', '1e+}', { message: "invalid character '}' in exponent of numeric literal", offset: 3, failure: 'syntax' }],
  ['bad literal', 'trUe', { message: "invalid character in literal true (expecting 'u')", offset: 2, failure: 'syntax' }],
  ['syntax error before the depth limit', '[x' + deep(10_001), { message: 'invalid character looking for beginning of value', offset: 1, failure: 'syntax' }],
];

describe('findJsonSyntaxError', () => {
  it.each(cases)('%s', (_name, text, want) => {
    expect(findJsonSyntaxError(text)).toEqual(want);
  });

  it.each(cases)('agrees with JSON.parse on validity: %s', (_name, text, want) => {
    if (want?.failure === 'depth' || text.startsWith('[x')) return; // JSON.parse has no depth limit
    let parses = true;
    try {
      JSON.parse(text);
    } catch {
      parses = false;
    }
    expect(parses).toBe(want === undefined);
  });
});
