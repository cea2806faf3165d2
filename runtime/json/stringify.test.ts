import { describe, expect, it } from 'vitest';
import { isMarkedDeep, jsonText, markDeep, stringifyLinear } from './stringify.ts';

/** `{"a":{"a":...{"a":"x"}}}`, `levels` objects deep, built without recursion; and its JSON text. */
function chain(levels: number): { value: Record<string, unknown>; text: string } {
  let value: Record<string, unknown> = { a: 'x' };
  for (let i = 1; i < levels; i++) value = { a: value };
  return { value, text: '{"a":'.repeat(levels) + '"x"' + '}'.repeat(levels) };
}

describe('stringifyLinear: JSON.stringify\'s text', () => {
  const cases: { name: string; value: unknown }[] = [
    { name: 'scalars', value: [null, true, false, 0, -0, 1.5, 1e21, 'a"b\\c\n\u2028', '😀'] },
    { name: 'NaN and infinities as null', value: [NaN, Infinity, -Infinity] },
    { name: 'empty containers', value: { a: {}, b: [], c: [[]], d: [{}] } },
    { name: 'undefined, functions and symbols: left out of objects, null in arrays', value: { a: undefined, b: () => 1, c: Symbol('s'), d: 1, l: [undefined, () => 1, Symbol('s')] } },
    { name: 'keys that need escaping, and numeric keys in V8\'s order', value: { 'a"b': 1, '\n': 2, 2: 'two', 1: 'one', z: { '': [] } } },
    { name: 'toJSON (a Date)', value: { t: new Date(0), l: [new Date(0)] } },
    { name: 'an API object', value: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels: { a: 'b' }, managedFields: [{ manager: 'm', fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } } }] }, data: { a: 'b' } } },
    { name: 'a top-level string', value: 'text' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(stringifyLinear(c.value)).toBe(JSON.stringify(c.value));
    });
  }

  it('10,000 levels deep', () => {
    const { value, text } = chain(10_000);
    expect(stringifyLinear(value)).toBe(text);
  });
});

describe('jsonText', () => {
  it('takes the linear path for an object whose managedFields list is marked deep, with the same text', () => {
    const { value: deepSpec, text: deepText } = chain(3000);
    const entries = [{ manager: 'm', fieldsV1: { 'f:spec': {} } }];
    const obj = { kind: 'Blob', metadata: { name: 'b', managedFields: entries }, spec: deepSpec };
    const expected = `{"kind":"Blob","metadata":{"name":"b","managedFields":[{"manager":"m","fieldsV1":{"f:spec":{}}}]},"spec":${deepText}}`;
    expect(isMarkedDeep(entries)).toBe(false);
    expect(jsonText(obj)).toBe(expected);
    markDeep(entries);
    expect(isMarkedDeep(entries)).toBe(true);
    expect(jsonText(obj)).toBe(expected);
    // the copies a write makes of the top level and metadata share the list, and with it the mark
    expect(jsonText({ ...obj, metadata: { ...obj.metadata, resourceVersion: '5' } })).toBe(expected.replace('}]},"spec"', '}],"resourceVersion":"5"},"spec"'));
  });
});
