import { describe, expect, it } from 'vitest';
import { type FieldValidationDirective, handleDuplicates, jsonDuplicateErrors, strictDecodingError, warningText, yamlDuplicateError } from './duplicate-fields.ts';

const dups = [
  { path: 'metadata.name', key: 'name', line: 4 },
  { path: 'spec.items[0].x', key: 'x', line: 9 },
];

describe('wording', () => {
  it.each([
    ['sigs.k8s.io/json', jsonDuplicateErrors(dups), ['duplicate field "metadata.name"', 'duplicate field "spec.items[0].x"']],
    ['JSON patch prefix', jsonDuplicateErrors(dups.slice(0, 1), 'json patch '), ['json patch duplicate field "metadata.name"']],
    ['go-yaml', [yamlDuplicateError(dups)], ['yaml: unmarshal errors:\n  line 4: key "name" already set in map\n  line 9: key "x" already set in map']],
    ['strict decoding error', [strictDecodingError(['a', 'b'])], ['strict decoding error: a, b']],
    ['warning folded to one line', [warningText('yaml: unmarshal errors:\n  line 4: x')], ['yaml: unmarshal errors: line 4: x']],
  ])('%s', (_n, got, want) => expect(got).toEqual(want));
});

describe('handleDuplicates', () => {
  const fail = (errs: readonly string[]): Error => new Error(`failed: ${errs.join('; ')}`);
  const cases: [FieldValidationDirective, string[], string[] | string][] = [
    ['Warn', ['duplicate field "a"'], ['duplicate field "a"']],
    ['Ignore', ['duplicate field "a"'], []],
    ['Strict', ['duplicate field "a"', 'duplicate field "b"'], 'failed: duplicate field "a"; duplicate field "b"'],
    ['Strict', [], []],
  ];
  it.each(cases)('%s with %j', (directive, errors, want) => {
    if (typeof want === 'string') expect(() => handleDuplicates(errors, directive, fail)).toThrow(want);
    else expect(handleDuplicates(errors, directive, fail)).toEqual(want);
  });
});
