// Long literal runs of a pattern are split with empty groups before RE2JS parses them (quadratic
// otherwise): the split pattern matches exactly what the pattern matches, errors quote the pattern
// as written, and a 100,000-character literal compiles (38 s of CPU before the split).

import { RE2JS } from '@bufbuild/re2';
import { describe, expect, it } from 'vitest';
import { compilePattern } from './pattern.ts';
import { splitLiteralRuns } from './pattern-literal-runs.ts';

const x = (n: number): string => 'x'.repeat(n);

/** [name, pattern, inputs that must match alike] */
const cases: [string, string, string[]][] = [
  ['short: unchanged', '^[a-z]+$', ['abc', 'ABC']],
  ['a long literal', `^${x(300)}$`, [x(300), x(299), `${x(300)}y`]],
  ['a quantifier after the run', `^${x(200)}y*$`, [x(200), `${x(200)}yyy`, `${x(199)}y`]],
  ['a counted repeat after the run', `^${x(200)}y{2}$`, [`${x(200)}yy`, `${x(200)}y`]],
  ['escapes and classes inside the run', `^${x(100)}\\.[x-z]${x(100)}\\Q${x(100)}*\\E$`, [`${x(100)}.y${x(100)}${x(100)}*`, `${x(100)}ay${x(100)}${x(100)}*`]],
  ['case folding', `(?i)^${x(150)}$`, [x(150).toUpperCase(), x(149)]],
  ['alternation', `^(${x(100)}|${'y'.repeat(100)})$`, [x(100), 'y'.repeat(100), 'xy']],
  ['a class with ] first', `^[]x]${x(100)}$`, [`]${x(100)}`, `a${x(100)}`]],
];

/** Longest run of characters outside `(?:)` groups inserted by the split (for a pattern of x's). */
function longestRun(p: string): number {
  return Math.max(...p.split('(?:)').map((s) => s.length));
}

describe('splitLiteralRuns', () => {
  it.each(cases)('%s: the same matches', (_name, pattern, inputs) => {
    const split = splitLiteralRuns(pattern);
    const a = RE2JS.compile(pattern);
    const b = RE2JS.compile(split);
    for (const s of inputs) expect(b.test(s), JSON.stringify(s.slice(0, 20))).toBe(a.test(s));
  });

  it('no run of a long literal is longer than 65 characters', () => {
    expect(longestRun(splitLiteralRuns(x(10_000)))).toBeLessThanOrEqual(65);
  });

  it('an invalid pattern with a long literal: the error quotes the pattern as written', () => {
    const pattern = `${x(300)}(`;
    const got = compilePattern(pattern);
    let want = '';
    try {
      RE2JS.compile(pattern);
    } catch (e) {
      want = (e as Error).message;
    }
    expect(got).toEqual({ ok: false, error: want });
  });

  it('a 100,000-character literal compiles and matches', () => {
    const got = compilePattern(`^${x(100_000)}$`);
    expect(got.ok).toBe(true);
    if (got.ok) expect([got.pattern.test(x(100_000)), got.pattern.test(x(99_999))]).toEqual([true, false]);
  }, 20_000);
});
