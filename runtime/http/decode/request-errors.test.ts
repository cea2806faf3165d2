// What the HTTP edge answers for bodies that do not decode, and for duplicate keys per
// fieldValidation (body.ts for create/update, patch.ts for every patch type).
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../errors/api-error.ts';
import { decodeObject, objectBodyWarnings } from '../body.ts';
import { APPLY_PATCH, decodeApplyPatchBody, decodeJsonPatchBody, JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH } from '../patch.ts';
import type { FieldValidationDirective } from './duplicate-fields.ts';

function failure(fn: () => unknown): { code: number; message: string } | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return { code: e.code, message: e.message };
    throw e;
  }
  return undefined;
}

const deep = (n: number): string => `{"apiVersion":"v1","kind":"ConfigMap","data":${'{"a":'.repeat(n - 1)}1${'}'.repeat(n - 1)}}`;

describe('object bodies (create, update)', () => {
  const cases: [string, string, string, { code: number; message: string | RegExp } | undefined][] = [
    ['valid', 'application/json', '{"apiVersion":"v1","kind":"ConfigMap"}', undefined],
    ['syntax', 'application/json', '{"kind": x}', { code: 400, message: "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character looking for beginning of value at line 1, column 10" }],
    ['too deep', 'application/json', deep(10_001), { code: 400, message: /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: invalid character '\{' exceeded max depth at line 1, column \d+$/ }],
    ['out of range', 'application/json', '{"apiVersion":"v1","kind":"ConfigMap","data":{"x":1e400}}', { code: 400, message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number 1e400 into Go value of type float64' }],
    ['alias bomb', 'application/yaml', 'a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n', { code: 400, message: 'the object provided is unrecognized (must be of type ConfigMap): yaml: document contains excessive aliasing' }],
    ['.inf', 'application/yaml', 'kind: ConfigMap\nx: .inf\n', { code: 400, message: 'the object provided is unrecognized (must be of type ConfigMap): json: unsupported value: +Inf' }],
  ];
  it.each(cases)('%s', (_n, type, text, want) => {
    const got = failure(() => decodeObject(Buffer.from(text), type, 'ConfigMap'));
    if (!want) return expect(got).toBeUndefined();
    expect(got?.code).toBe(want.code);
    if (typeof want.message === 'string') expect(got?.message).toBe(want.message);
    else expect(got?.message).toMatch(want.message);
  });

  const dupJson = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","name":"b"}}';
  const dupYaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n';
  const dupCases: [string, string, string, FieldValidationDirective, string[] | string][] = [
    ['JSON, Warn', 'application/json', dupJson, 'Warn', ['duplicate field "metadata.name"']],
    ['JSON, Ignore', 'application/json', dupJson, 'Ignore', []],
    ['JSON, Strict', 'application/json', dupJson, 'Strict', 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "metadata.name"'],
    ['YAML, Warn (one line)', 'application/yaml', dupYaml, 'Warn', ['yaml: unmarshal errors: line 5: key "name" already set in map']],
    ['YAML, Strict', 'application/yaml', dupYaml, 'Strict', 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: yaml: unmarshal errors:\n  line 5: key "name" already set in map'],
  ];
  it.each(dupCases)('duplicates: %s', (_n, type, text, directive, want) => {
    const decoded = decodeObject(Buffer.from(text), type, 'ConfigMap');
    expect((decoded.value as { metadata: { name: string } }).metadata.name).toBe('b');
    if (typeof want === 'string') expect(failure(() => objectBodyWarnings(decoded, directive, 'ConfigMap'))).toEqual({ code: 400, message: want });
    else expect(objectBodyWarnings(decoded, directive, 'ConfigMap')).toEqual(want);
  });
});

describe('patch bodies', () => {
  const cases: [string, string, string, FieldValidationDirective, { warnings?: string[]; code?: number; message?: string | RegExp }][] = [
    ['merge patch, Warn', MERGE_PATCH, '{"spec":{"x":1,"x":2}}', 'Warn', { warnings: ['duplicate field "spec.x"'] }],
    ['merge patch, Strict (422 as upstream, no object quoted)', MERGE_PATCH, '{"spec":{"x":1,"x":2}}', 'Strict', { code: 422, message: ' "" is invalid: patch: Invalid value: strict decoding error: duplicate field "spec.x"' }],
    ['JSON patch, Warn', JSON_PATCH, '[{"op":"add","op":"add","path":"/a","value":1}]', 'Warn', { warnings: ['json patch duplicate field "[0].op"'] }],
    ['strategic merge patch, Ignore', STRATEGIC_MERGE_PATCH, '{"a":1,"a":2}', 'Ignore', { warnings: [] }],
    ['merge patch too deep', MERGE_PATCH, `{"spec":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`, 'Warn', { code: 400, message: /^error decoding patch: invalid character '\{' exceeded max depth at line 1, column \d+$/ }],
    ['strategic merge patch out of range', STRATEGIC_MERGE_PATCH, '{"x":-1e400}', 'Warn', { code: 400, message: 'error decoding patch: json: cannot unmarshal number -1e400 into Go value of type float64' }],
    ['JSON patch syntax', JSON_PATCH, '[{"op":"add",}]', 'Warn', { code: 400, message: "error decoding patch: invalid character '}' looking for beginning of object key string at line 1, column 14" }],
    ['apply (JSON text), Warn', APPLY_PATCH, '{"a":1,\n"a":2}', 'Warn', { warnings: ['error converting YAML to JSON: yaml: unmarshal errors: line 2: key "a" already set in map'] }],
    ['apply (YAML), Strict', APPLY_PATCH, 'a: 1\na: 2\n', 'Strict', { code: 400, message: 'error strict decoding patch: error converting YAML to JSON: yaml: unmarshal errors:\n  line 2: key "a" already set in map' }],
    ['apply alias bomb', APPLY_PATCH, 'a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n', 'Warn', { code: 400, message: 'error decoding patch: error converting YAML to JSON: yaml: document contains excessive aliasing' }],
    ['apply 10,000 deep JSON passes decoding', APPLY_PATCH, `{"spec":${'{"a":'.repeat(9_998)}1${'}'.repeat(9_998)}}`, 'Warn', { warnings: [] }],
  ];
  it.each(cases)('%s', (_n, type, text, directive, want) => {
    const decode = (): { warnings: string[] } => (type === APPLY_PATCH ? decodeApplyPatchBody(text, directive) : decodeJsonPatchBody(text, type, directive));
    if (want.warnings) return expect(decode().warnings).toEqual(want.warnings);
    const got = failure(decode);
    expect(got?.code).toBe(want.code);
    if (typeof want.message === 'string') expect(got?.message).toBe(want.message);
    else expect(got?.message).toMatch(want.message as RegExp);
  });
});
