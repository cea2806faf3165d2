// The `pattern` keyword through RE2: Go's regexp semantics, upstream's compile errors, and linear time
// on patterns a backtracking engine takes exponential time on, in both validator builders.
import { describe, expect, it } from 'vitest';
import { compilePattern } from './pattern.ts';
import { compileSchemaToClosures as compileClosures } from './compile.ts';
import { compileSchemaCode } from './codegen.ts';
import { SchemaCompileError } from './compile-error.ts';
import type { Schema } from './types.ts';

describe('compilePattern: Go regexp syntax and matching', () => {
  // [pattern, input, Go's regexp.MatchString]
  const matches: [string, string, boolean][] = [
    ['^[a-z]+$', 'abc', true],
    ['^[a-z]+$', 'abc1', false],
    ['b', 'abc', true], // unanchored search
    ['^a$', 'a\n', false], // `$` is the end of the text without (?m)
    ['(?m)^a$', 'x\na', true],
    ['^.$', '\n', false],
    ['^.$', '😀', true], // one code point
    ['^\\s$', '\u00a0', false], // \s is ASCII in Go (JS RegExp matches NBSP)
    ['^\\w+$', 'é', false],
    ['^\\p{L}+$', 'é', true],
    ['^(?i)abc$', 'ABC', true],
    ['^[[:alpha:]]+$', 'abc', true],
    ['^\\x{41}$', 'A', true],
  ];
  it.each(matches)('%j against %j is %s', (p, s, want) => {
    const c = compilePattern(p);
    if (!c.ok) throw new Error(c.error);
    expect(c.pattern.test(s)).toBe(want);
  });

  // [pattern, Go's regexp.Compile error]
  const errors: [string, string][] = [
    ['+', 'error parsing regexp: missing argument to repetition operator: `+`'],
    ['(', 'error parsing regexp: missing closing ): `(`'],
    ['(?=a)', 'error parsing regexp: invalid or unsupported Perl syntax: `(?=`'],
    ['(a)\\1', 'error parsing regexp: invalid escape sequence: `\\1`'],
    ['\\uFFFF', 'error parsing regexp: invalid escape sequence: `\\u`'],
    ['a**', 'error parsing regexp: invalid nested repetition operator: `**`'],
    ['[z-a]', 'error parsing regexp: invalid character class range: `z-a`'],
  ];
  it.each(errors)('%j does not compile: %s', (p, want) => {
    expect(compilePattern(p)).toEqual({ ok: false, error: want });
  });

  it('returns the same compiled pattern for the same source', () => {
    const a = compilePattern('^x+$');
    const b = compilePattern('^x+$');
    expect(a.ok && b.ok && a.pattern === b.pattern).toBe(true);
  });
});

describe('pattern in both validator builders', () => {
  const builders = [
    ['closures', (s: Schema) => compileClosures(s)],
    ['generated code', (s: Schema) => compileSchemaCode(s)],
  ] as const;
  const schema: Schema = { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } };

  describe.each(builders)('%s', (_name, build) => {
    const v = build(schema);
    // [input, errors]
    const cases: [string, string[]][] = [
      ['aaaa', []],
      ['a'.repeat(32) + '!', [`Invalid value: "${'a'.repeat(32)}!": s in body should match '^(a+)+$'`]],
    ];
    it.each(cases)('%j', (s, want) => {
      expect(v.validate({ s }).map((e) => e.message)).toEqual(want);
    });

    it('matches a catastrophic pattern in linear time (JS RegExp: ~1 s at 28 characters, doubling per character)', () => {
      const t = performance.now();
      for (const n of [28, 32, 40, 64]) expect(v.validate({ s: 'a'.repeat(n) + '!' })).toHaveLength(1);
      expect(v.validate({ s: 'a'.repeat(200_000) + '!' })).toHaveLength(1);
      expect(performance.now() - t).toBeLessThan(1000);
    });

    it('refuses a pattern RE2 cannot compile, naming its JSON pointer', () => {
      const bad: Schema = { type: 'object', properties: { s: { type: 'string', pattern: '(?!x)' } } };
      expect(() => build(bad)).toThrow(SchemaCompileError);
      expect(() => build(bad)).toThrow(/\/properties\/s\/pattern.*invalid or unsupported Perl syntax: `\(\?!`/);
    });
  });
});
