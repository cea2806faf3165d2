// A CRD's `pattern` is Go's regexp (RE2) when the CRD is written: what RE2 cannot compile is refused
// with upstream's message, what it compiles is matched in linear time when custom resources are written.
import { describe, expect, it } from 'vitest';
import { validateSchema } from './structural.ts';
import { compileSchemaToClosures } from '../schema/compile.ts';
import type { Schema } from '../schema/types.ts';

const P = 'spec.versions[0].schema.openAPIV3Schema';
const withPattern = (pattern: string) => ({ type: 'object', properties: { s: { type: 'string', pattern } } });

describe('CRD pattern at write time', () => {
  // [pattern, errors]
  const cases: [string, string[]][] = [
    ['^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', []],
    ['^(a+)+$', []], // RE2 compiles it and matches it in linear time
    ['\\p{Greek}', []],
    ['(?=a)b', [`${P}.properties[s].pattern: Invalid value: "(?=a)b": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: \`(?=\``]],
    ['(a)\\1', [`${P}.properties[s].pattern: Invalid value: "(a)\\\\1": must be a valid regular expression, but isn't: error parsing regexp: invalid escape sequence: \`\\1\``]],
    ['+', [`${P}.properties[s].pattern: Invalid value: "+": must be a valid regular expression, but isn't: error parsing regexp: missing argument to repetition operator: \`+\``]],
    ['\\Z', [`${P}.properties[s].pattern: Invalid value: "\\\\Z": must be a valid regular expression, but isn't: error parsing regexp: invalid escape sequence: \`\\Z\``]],
  ];
  it.each(cases)('%j', (pattern, want) => {
    expect(validateSchema(withPattern(pattern), P).map((e) => `${e.field}: ${e.message}`)).toEqual(want);
  });

  it('a pattern in a nested value validation (allOf) is checked too', () => {
    const s = { type: 'object', properties: { s: { type: 'string', allOf: [{ pattern: '(?<!x)y' }] } } };
    expect(validateSchema(s, P).map((e) => e.field)).toEqual([`${P}.properties[s].allOf[0].pattern`]);
  });

  it('custom resources are matched in linear time: ^(a+)+$ against 10,000 a and a "!"', () => {
    const v = compileSchemaToClosures(withPattern('^(a+)+$') as Schema);
    const t = performance.now();
    expect(v.validate({ s: 'a'.repeat(10_000) + '!' })).toHaveLength(1);
    expect(v.validate({ s: 'a'.repeat(10_000) })).toEqual([]);
    expect(performance.now() - t).toBeLessThan(200);
  });
});
