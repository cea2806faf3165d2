import { describe, expect, it } from 'vitest';
import { countMembers, exceedsDepth, findJsonDuplicates, firstNumberOutOfRange } from './json-structure.ts';

describe('countMembers', () => {
  const cases: [string, number][] = [
    ['{}', 0],
    ['{"a":1,"b":{"c":"x:y","d":[{"e":null}]}}', 5],
    ['{"a\\":":"\\\\","b":":"}', 2],
    ['[1, 2, "a:b"]', 0],
  ];
  it.each(cases)('%s has %i members', (text, want) => expect(countMembers(text)).toBe(want));
});

describe('exceedsDepth', () => {
  const cases: [string, string, number, boolean][] = [
    ['text no longer than the limit', '[[[[]]]]', 8, false],
    ['exactly the limit', '[[]]' + ' '.repeat(10), 2, false],
    ['one past the limit', '[[[]]]' + ' '.repeat(10), 2, true],
    ['brackets in strings ignored', '["[[[[[[[[[["]' + ' '.repeat(10), 2, false],
    ['siblings do not add up', '[[],[],[],[]]' + ' '.repeat(10), 2, false],
  ];
  it.each(cases)('%s', (_n, text, max, want) => expect(exceedsDepth(text, max)).toBe(want));
});

describe('firstNumberOutOfRange', () => {
  const cases: [string, string | undefined][] = [
    ['{"a":1e308,"b":-1.5e-400}', undefined],
    ['{"a":"1e400","b":-1e400}', '-1e400'],
    ['[1, 2e999]', '2e999'],
  ];
  it.each(cases)('%s', (text, want) => expect(firstNumberOutOfRange(text)).toBe(want));
});

describe('findJsonDuplicates', () => {
  const cases: [string, string, { path: string; key: string; line: number }[]][] = [
    ['none', '{"a":1,"b":{"a":2}}', []],
    ['top level', '{"name":1,\n"name":2}', [{ path: 'name', key: 'name', line: 2 }]],
    ['nested with arrays', '{"spec":{"items":[{"x":1},{"x":1,"y":2,\n\n"x":3}]}}', [{ path: 'spec.items[1].x', key: 'x', line: 3 }]],
    ['JSON patch operations', '[{"op":"add","op":"remove","path":"/a"}]', [{ path: '[0].op', key: 'op', line: 1 }]],
    ['reported once per path', '{"a":1,"a":2,"a":3}', [{ path: 'a', key: 'a', line: 1 }]],
    ['escaped keys unescaped', '{"a\\u0062":1,"ab":2}', [{ path: 'ab', key: 'ab', line: 1 }]],
    ['keys in strings are values', '{"a":"{\\"b\\":1,\\"b\\":2}"}', []],
  ];
  it.each(cases)('%s', (_n, text, want) => expect(findJsonDuplicates(text)).toEqual(want));
});
