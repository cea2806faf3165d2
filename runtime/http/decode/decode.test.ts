import { describe, expect, it } from 'vitest';
import { decodeJson, decodeYaml } from './decode.ts';
import { DecodeError } from './decode-error.ts';
import { MAX_YAML_NESTING_DEPTH } from './limits.ts';

const deepJson = (n: number): string => `{"spec":${'{"a":'.repeat(n - 1)}1${'}'.repeat(n - 1)}}`;
const SECRET = 'c2VjcmV0LXZhbHVl';

type Want = { value?: unknown; duplicates?: string[]; error?: RegExp | string; failure?: string };

function run(decode: (t: string) => { value: unknown; duplicates: { path: string }[] }, text: string, want: Want): void {
  if (want.error !== undefined) {
    let caught: unknown;
    try {
      decode(text);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(DecodeError);
    const err = caught as DecodeError;
    if (typeof want.error === 'string') expect(err.message).toBe(want.error);
    else expect(err.message).toMatch(want.error);
    if (want.failure) expect(err.failure).toBe(want.failure);
    expect(err.message).not.toContain(SECRET);
    return;
  }
  const got = decode(text);
  if ('value' in want) expect(got.value).toEqual(want.value);
  expect(got.duplicates.map((d) => d.path)).toEqual(want.duplicates ?? []);
}

const jsonCases: [string, string, Want][] = [
  ['a plain object', '{"a":1,"b":[true,null]}', { value: { a: 1, b: [true, null] } }],
  ['10,000 levels pass', deepJson(10_000), {}],
  ['10,001 levels fail as upstream', deepJson(10_001), { error: `invalid character '{' exceeded max depth at line 1, column ${9 + 5 * 9_999}`, failure: 'depth' }],
  ['a number out of float64 range', '{"spec":{"x":1e400}}', { error: 'json: cannot unmarshal number 1e400 into Go value of type float64', failure: 'number' }],
  ['a huge number quoted short', `{"x":1${'0'.repeat(400)}}`, { error: `json: cannot unmarshal number 1${'0'.repeat(39)}... into Go value of type float64` }],
  ['an underflow is zero, as Go', '{"x":1e-400}', { value: { x: 0 } }],
  ['duplicates keep the last value', '{"metadata":{"name":"a","name":"b"}}', { value: { metadata: { name: 'b' } }, duplicates: ['metadata.name'] }],
  ['a syntax error quotes no source', `{"data":{"k":${SECRET}}}`, { error: 'invalid character looking for beginning of value at line 1, column 14', failure: 'syntax' }],
  ['an unterminated Secret string', `{"data":{"k":"${SECRET}`, { error: /^unexpected end of JSON input at line 1, column \d+$/ }],
  ['position on a later line', '{\n  "a": 1,\n  "b": ]\n}', { error: "invalid character ']' looking for beginning of value at line 3, column 8" }],
];

const yamlCases: [string, string, Want][] = [
  ['block YAML', 'a: 1\nb:\n- c\n- {d: e}\n', { value: { a: 1, b: ['c', { d: 'e' }] } }],
  ['JSON text takes the JSON path (10,000 levels)', deepJson(10_000), {}],
  ['JSON text past 10,000 levels', deepJson(10_001), { error: /exceeded max depth/, failure: 'depth' }],
  ['flow YAML that is not JSON', '{a: [b, c]}', { value: { a: ['b', 'c'] } }],
  [`flow nesting past ${MAX_YAML_NESTING_DEPTH}`, `a: ${'['.repeat(MAX_YAML_NESTING_DEPTH)}${']'.repeat(MAX_YAML_NESTING_DEPTH)}`, { error: `yaml: exceeded max depth of ${MAX_YAML_NESTING_DEPTH}`, failure: 'depth' }],
  ['flow nesting of 200 passes', `a: ${'['.repeat(200)}${']'.repeat(200)}`, {}],
  ['block nesting past the bound', Array.from({ length: 300 }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ' 1', { error: /exceeded max depth/, failure: 'depth' }],
  ['block nesting of 100 passes', Array.from({ length: 100 }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ' 1', {}],
  ['10,000 levels of YAML never reach the library', `a: ${'- '.repeat(10_000)}x`, { error: /exceeded max depth/, failure: 'depth' }],
  ['an alias bomb', 'a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n', { error: 'yaml: document contains excessive aliasing', failure: 'aliases' }],
  ['3,000 distinct anchors each aliased (10 s of library work) refused', Array.from({ length: 3_000 }, (_, i) => `k${i}: &a${i} x\nv${i}: *a${i}\n`).join(''), { error: 'yaml: document contains excessive aliasing', failure: 'aliases' }],
  ['200 distinct anchors each aliased pass', Array.from({ length: 200 }, (_, i) => `k${i}: &a${i} x\nv${i}: *a${i}\n`).join(''), {}],
  ['a few aliases pass', 'a: &a {b: 1}\nc: *a\n', { value: { a: { b: 1 }, c: { b: 1 } } }],
  ['.inf as upstream (json cannot carry it)', 'x: .inf', { error: 'json: unsupported value: +Inf', failure: 'number' }],
  ['-.inf', 'x: -.inf', { error: 'json: unsupported value: -Inf' }],
  ['.nan', 'x: .nan', { error: 'json: unsupported value: NaN' }],
  ['duplicate keys, named by path', 'a: 1\nb:\n  c: 2\n  c: 3\n', { value: { a: 1, b: { c: 3 } }, duplicates: ['b.c'] }],
  ['a syntax error quotes no source', `a: "${SECRET}\\q"`, { error: 'yaml: line 1: invalid escape sequence in a double-quoted scalar', failure: 'syntax' }],
  ['an unterminated flow map', `a: {b: ${SECRET}`, { error: /^yaml: line 1: / }],
  ['an empty document', '', { value: null }],
];

describe('decodeJson', () => {
  it.each(jsonCases)('%s', (_n, text, want) => run(decodeJson, text, want));
});

describe('decodeYaml', () => {
  it.each(yamlCases)('%s', (_n, text, want) => run(decodeYaml, text, want));

  it('returns the line of a duplicate key (go-yaml words duplicates by line)', () => {
    expect(decodeYaml('a: 1\nb: 2\na: 3\n').duplicates).toEqual([{ path: 'a', key: 'a', line: 3 }]);
    expect(decodeYaml('{"a": 1,\n "a": 2}').duplicates).toEqual([{ path: 'a', key: 'a', line: 2 }]);
  });
});
