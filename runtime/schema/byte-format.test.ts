// The `byte` format: Go's base64 decode offsets, and an error that names the field and the offset but
// never carries the value (bytes may be a Secret's), in both validator builders and the built-in kinds.
import { describe, expect, it } from 'vitest';
import { base64ErrorOffset } from './formats.ts';
import { compileSchemaToClosures as compileClosures } from './compile.ts';
import { compileSchemaCode } from './codegen.ts';
import type { Schema } from './types.ts';
import * as validators from '../../out/validators/index.ts';

describe('base64ErrorOffset: where Go\'s base64.StdEncoding.DecodeString fails', () => {
  // [input, offset skipping line breaks (a JSON []byte field), offset of the `byte` format (no line breaks)]
  const cases: [string, number, number][] = [
    ['', -1, -1],
    ['YWJj', -1, -1],
    ['YWI=', -1, -1],
    ['YQ==', -1, -1],
    ['YR==', -1, -1], // non-zero padding bits: StdEncoding is not strict
    ['billy', 4, 4], // a partial quantum: Go reports where it starts
    ['bWU', 0, 0],
    ['hunter2', 4, 4],
    ['YQ=', 3, 3], // not enough padding: the length
    ['YQ=x', 2, 2], // incorrect padding: the first '='
    ['Y===', 1, 1],
    ['=', 0, 0],
    ['YQ===', 4, 4], // trailing garbage
    ['YQ==YQ==', 4, 4],
    ['YWJj\nZGVm', -1, 4],
    ['YWJj\r\nZGVm\n', -1, 4],
    ['YQ=\n=', -1, 2],
    ['é', 0, 0],
    ['YWJjé', 4, 4],
    ['YW\u00e9Jj', 2, 2],
  ];
  it.each(cases)('%j: %i / %i', (s, json, format) => {
    expect(base64ErrorOffset(s, true)).toBe(json);
    expect(base64ErrorOffset(s, false)).toBe(format);
  });
});

describe('the byte format error carries no value', () => {
  const schema: Schema = { type: 'object', properties: { data: { type: 'object', additionalProperties: { type: 'string', format: 'byte' } } } };
  const builders = [
    ['closures', compileClosures(schema)],
    ['generated code', compileSchemaCode(schema)],
  ] as const;
  // [value, message]
  const cases: [string, string][] = [
    ['hunter2-secret', 'Invalid value: data[k] in body must be of type byte: illegal base64 data at input byte 7'],
    ['c2VjcmV0\nc2VjcmV0', 'Invalid value: data[k] in body must be of type byte: illegal base64 data at input byte 8'],
    ['c2VjcmV0LQ=', 'Invalid value: data[k] in body must be of type byte: illegal base64 data at input byte 11'],
  ];
  describe.each(builders)('%s', (_name, v) => {
    it.each(cases)('%j', (value, message) => {
      const errs = v.validate({ data: { k: value } });
      expect(errs).toEqual([{ field: 'data[k]', reason: 'FieldValueTypeInvalid', message }]);
      expect(JSON.stringify(errs)).not.toContain(value.slice(0, 6));
    });
  });

  // [kind, object with a bad value, field]
  const builtins: [string, (o: unknown) => { field: string; message: string }[], unknown, string][] = [
    ['ConfigMap binaryData', validators.ConfigMap.validate, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'd' }, binaryData: { k: 'not-base64!' } }, 'binaryData[k]'],
    ['Secret data', validators.Secret.validate, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a', namespace: 'd' }, data: { k: 'not-base64!' } }, 'data[k]'],
  ];
  it.each(builtins)('%s', (_kind, validate, obj, field) => {
    const errs = validate(obj).filter((e) => e.field === field);
    expect(errs.map((e) => e.message)).toEqual([`Invalid value: ${field} in body must be of type byte: illegal base64 data at input byte 3`]);
    expect(JSON.stringify(validate(obj))).not.toContain('not-base64');
  });
});
