// Every string format in linear time: inputs that made a backtracking check exponential or quadratic
// (email words separated by Unicode spaces, duration digit runs without a unit), each with the verdict
// it must give, checked at 100,000 characters against a time bound.
import { describe, expect, it } from 'vitest';
import { stringFormat, STRING_FORMATS } from './formats.ts';

const N = 100_000;
const rep = (unit: string, total: number): string => unit.repeat(Math.ceil(total / unit.length));

// [format, what, input, verdict]
const hostile: [string, string, string, boolean][] = [
  ['email', 'words separated by U+00A0 (atext, not space)', rep('a\u00a0', N) + '!', false],
  ['email', 'words separated by U+3000 then an address', rep('a\u3000', N) + '<a@b>!', false],
  ['email', 'words separated by spaces, no address', rep('a ', N) + '<', false],
  ['email', 'quoted words', rep('"a" ', N) + '!', false],
  ['email', 'a long dot-atom without a domain', rep('a.', N) + '@', false],
  ['email', 'an unclosed domain literal', 'a@[' + 'a'.repeat(N), false],
  ['email', 'a long display name', rep('a ', N) + '<a@b.example>', true],
  ['duration', 'a digit run with no unit', '1'.repeat(N), false],
  ['duration', 'digit runs with spaces, an unknown unit last', rep('1 ', N) + 'x', false],
  ['duration', 'digit runs with spaces, a known unit last', rep('1 ', N) + 'h', true],
  ['duration', 'Go syntax, many groups, bad tail', rep('1m', N) + 'x', false],
  ['hostname', 'many labels, bad tail', rep('a.', N) + '1', false],
  ['hostname', 'long hyphenated labels, bad tail', rep('a' + '-'.repeat(60) + 'a.', N) + '-', false],
  ['uri', 'a path of percent signs', '/' + '%'.repeat(N), false],
  ['datetime', 'spaces', ' '.repeat(N), false],
  ['byte', 'a long valid value', 'QUJD'.repeat(N / 4), true],
  ['quantity', 'digits and a bad suffix', '1'.repeat(N) + 'x', false],
];

describe('formats are linear on hostile input', () => {
  it.each(hostile)('%s: %s', (format, _what, input, verdict) => {
    const check = stringFormat(format)!;
    const t = performance.now();
    expect(check(input)).toBe(verdict);
    expect(performance.now() - t).toBeLessThan(250);
  });

  it('no format takes more than 250 ms on 100,000 characters of any of the generic shapes', () => {
    const shapes = ['a', 'a.', 'a ', 'a\u00a0', '1', '1 ', '1.', '1:', 'a@', '<', '-', '%', '"\\a', 'é'];
    for (const [name, check] of Object.entries(STRING_FORMATS)) {
      for (const shape of shapes) {
        const t = performance.now();
        check(rep(shape, N) + '!');
        expect(performance.now() - t, `${name} on ${JSON.stringify(shape)}`).toBeLessThan(250);
      }
    }
  });
});

describe('semantics kept', () => {
  // [format, input, verdict]
  const cases: [string, string, boolean][] = [
    ['email', 'user@example.com', true],
    ['email', '  John Doe <john@example.com>  ', true],
    ['email', 'Jöhn\u00a0Doe <john@example.com>', true], // U+00A0 is part of the word (any rune >= 0x80 is atext)
    ['email', '"quoted name" <a.b@example.com>', true],
    ['email', 'a@[192.0.2.1]', true],
    ['email', 'no-at-sign', false],
    ['email', 'a@b@c', false],
    ['duration', '3 days', true],
    ['duration', '1h30m', true],
    ['duration', '2 weeks 1 day', true],
    ['duration', '5 fortnights', false],
    ['duration', '12', false],
    ['duration', '1.5µs', true],
    ['duration', '10 µs', true],
  ];
  it.each(cases)('%s %j is %s', (format, input, verdict) => {
    expect(stringFormat(format)!(input)).toBe(verdict);
  });
});
