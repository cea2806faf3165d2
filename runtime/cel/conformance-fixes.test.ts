// Table-driven checks of the wrapper-layer fixes found with the cel-spec conformance data, each in
// the shape a validation rule would use (typed self/oldSelf and dyn values).

import { describe, expect, it } from 'vitest';
import type { Schema } from '../schema/types.ts';
import { CelEnvironment, Optional } from './engine.ts';
import { rewriteMessageSyntax } from './message-syntax.ts';
import type { ProtoTypes } from './messages.ts';
import { rewriteOptionalEntries } from './optional-syntax.ts';
import { createCelRuleEngine } from './rules.ts';
import { parseTimestamp } from './schema-types.ts';
import './libraries.ts';

const env = new CelEnvironment({
  variables: {
    m: 'map<string, int>',
    l: 'list<map<string, string>>',
    d: 'dyn',
    ts: 'google.protobuf.Timestamp',
    b: 'bytes',
    o: 'optional<map<string, int>>',
  },
});
const vars = {
  m: new Map([['a', 1n]]),
  l: [new Map([['name', 'x']])],
  d: 1n,
  ts: new Date('2009-02-13T23:31:30Z'),
  b: new Uint8Array([0xc3, 0xbf]),
  o: Optional.of(new Map([['a', 1n]])),
};

const cases: [string, unknown][] = [
  // has() on any operand, not only identifier chains
  ['has(l[0].name)', true],
  ['has(l[0].other)', false],
  ["has({'a': 1}.a)", true],
  ['has(o.?zz.b)', false],
  // optionals
  ['o.optMap(x, x.a + 1).value() == 2', true],
  ['o.optFlatMap(x, x.?b).hasValue()', false],
  ['optional.ofNonZeroValue(0).hasValue()', false],
  ['o == optional.of({"a": 1})', true],
  ['[?m.?a, ?m.?zz] == [1]', true],
  ["{?'k': m.?a, ?'z': m.?zz} == {'k': 1}", true],
  // numbers: cel-go's cross-type ordering, uint equality, int-keyed literals, leading-dot doubles
  ['dyn(9223372036854775807) < 9223372036854775808.0', false],
  ['dyn(1u) == 1', true],
  ["{6: 'six', 7: 'seven'}.exists_one(k, k % 5 == 2)", true],
  ["{1: 'a'}[dyn(1.0)] == 'a'", true],
  ['d > .5', true],
  // timestamps, durations, bytes
  ['string(ts) == "2009-02-13T23:31:30Z"', true],
  ['int(ts) == 1234567890', true],
  ["string(duration('1.5s')) == '1.5s'", true],
  ["ts.getDayOfMonth('+11:00') == 13", true],
  ["ts.getHours('-02:30') == 21", true],
  ["b == b'ÿ'", true],
  ["b > b'a'", true],
  ['[].all(i, v, i > -1)', true],
  // nanosecond timestamps and durations
  ["timestamp('2024-01-01T00:00:00.000001Z') < timestamp('2024-01-01T00:00:00.000002Z')", true],
  ["timestamp('2024-01-01T00:00:00.000001Z') == timestamp('2024-01-01T00:00:00.000002Z')", false],
  ["timestamp('2024-01-01T00:00:00.000001Z') != timestamp('2024-01-01T00:00:00.000002Z')", true],
  ["timestamp('2024-01-01T00:00:00.0000011Z') >= timestamp('2024-01-01T00:00:00.000001Z')", true],
  ["timestamp('2024-01-01T00:00:00.000000001Z') in [timestamp('2024-01-01T00:00:00Z')]", false],
  ["string(timestamp('9999-12-31T23:59:59.999999999Z'))", '9999-12-31T23:59:59.999999999Z'],
  ["string(timestamp('2024-01-01T01:00:00.1234567891+01:00'))", '2024-01-01T00:00:00.123456789Z'],
  ["string(timestamp('1969-12-31T23:59:59.999999999Z') + duration('1ns'))", '1970-01-01T00:00:00Z'],
  ["timestamp('2024-01-01T00:00:00.000002Z') - timestamp('2024-01-01T00:00:00.000001Z') == duration('1us')", true],
  ["string(timestamp('2024-01-01T00:00:00.000002Z') - timestamp('2024-01-01T00:00:01Z'))", '-0.999998s'],
  ["timestamp('2024-01-01T00:00:00.999999999Z').getMilliseconds() == 999", true],
  ["duration('10000h1ns') > duration('10000h')", true],
  ["duration('-1.5s') + duration('100ms') == duration('-1.4s')", true],
  ["[duration('2ns'), duration('1ns')].min() == duration('1ns')", true],
  ["[timestamp('2024-01-01T00:00:00.000002Z'), timestamp('2024-01-01T00:00:00.000001Z')].isSorted()", false],
  // `duration + timestamp` is a timestamp
  ["duration('120s') + timestamp('2009-02-13T23:01:00Z') == timestamp('2009-02-13T23:03:00Z')", true],
  ["duration('1ns') + timestamp('2009-02-13T23:01:00Z') > timestamp('2009-02-13T23:01:00Z')", true],
  ['type(duration("1s") + ts) == google.protobuf.Timestamp', true],
  ["'%.0f'.format([2.5]) == '2'", true],
  // format() arguments are exempt from the homogeneous-literal rule (cel-go's validator skips them)
  ["'%s/%d'.format(['a', 1]) == 'a/1'", true],
  // `%s` of nested values as cel-go's legacy formatter (Kubernetes' strings version 2) prints them
  [`'%s'.format([['abc', 3.14, null, [9, 8], timestamp('2023-02-03T23:31:20Z')]]) == '["abc", 3.140000, null, [9, 8], timestamp("2023-02-03T23:31:20Z")]'`, true],
  [`'%s'.format([{'b': duration('2h'), 'a': b'xyz', 'c': true}]) == '{"a":b"xyz", "b":duration("7200s"), "c":true}'`, true],
  [`'%s'.format([[double('NaN'), double('Infinity'), -1e21]]) == '["NaN", "+Inf", -1000000000000000000000.000000]'`, true],
  ["'%s'.format([2.5]) == '2.5'", true],
  ['int(9223372036854775807u) == 9223372036854775807', true],
  // raw bytes literals, uint list indexes
  ["br'\\d' == b'\\\\d'", true],
  ["size(rb'''a\\n''')", 3n],
  ['[7, 8][dyn(1u)]', 8n],
  ["optional.of(dyn({'x': 1})).x.value()", 1n],
  // well-known type literals (cel-go knows them in every environment)
  ['google.protobuf.Int32Value{value: 7} == 7', true],
  ['google.protobuf.BoolValue{} != null', true],
  ["google.protobuf.Struct{fields: {'a': 1}}.a", 1],
  ['google.protobuf.Value{} == null', true],
  ["google.protobuf.Duration{seconds: 90} == duration('90s')", true],
];

const errors: [string, RegExp][] = [
  ["timestamp('9999-12-31T23:59:59Z') + duration('1s')", /out of range/],
  ["duration('320000000000s')", /out of range/],
  ["string(b'\\xff')", /UTF-8/],
  ["'%x'.format([0.5])", /formatted/],
  ['int(9223372036854775808u)', /overflow/],
  ["ts.getHours('Not/AZone')", /time zone/],
  ["timestamp('9999-12-31T23:59:59.999999999Z') + duration('1ns')", /out of range/],
  ["duration('1ns') + timestamp('9999-12-31T23:59:59.999999999Z')", /out of range/],
  ["timestamp('2024-01-01T00:00:00.000001')", /RFC 3339/],
  ["timestamp('2024-02-30T00:00:00Z')", /RFC 3339/],
  ['google.protobuf.Int32Value{value: 2147483648}', /range/],
  ['optional.of(dyn(1)).x.hasValue()', /no such key/],
  ["{'k': dyn(null)}.?k.x.hasValue()", /no such key/],
  ["google.protobuf.Struct{fields: {1: 'a'}}", /keys must be strings/],
];

// Message types an environment declares (the conformance run declares the cel-spec test protos).
const protoTypes: ProtoTypes = {
  messages: [
    {
      name: 'test.v1.Point',
      fields: [
        { name: 'x', type: { kind: 'scalar', scalar: 'int64' }, explicitPresence: false },
        { name: 'small', type: { kind: 'scalar', scalar: 'int32' }, explicitPresence: false },
        { name: 'label', type: { kind: 'scalar', scalar: 'string' }, explicitPresence: true, defaultValue: 'none' },
        { name: 'tags', type: { kind: 'scalar', scalar: 'string' }, explicitPresence: false, repeated: true },
        { name: 'next', type: { kind: 'message', typeName: 'test.v1.Point' }, explicitPresence: true },
        { name: 'weight', type: { kind: 'message', typeName: 'google.protobuf.DoubleValue' }, explicitPresence: true },
        { name: 'color', type: { kind: 'enum', enumName: 'test.v1.Color' }, explicitPresence: false },
      ],
    },
  ],
  enums: [{ name: 'test.v1.Color', values: { RED: 0, BLUE: 1 } }],
};
const messageEnv = new CelEnvironment({ variables: {}, protoTypes, container: 'test.v1' });
const messageCases: [string, unknown][] = [
  ['Point{x: 1}.x == 1', true],
  ['Point{}.x == 0 && Point{}.label == "none" && Point{}.tags == [] && Point{}.weight == null', true],
  ['has(Point{x: 0}.x) || has(Point{}.next) || has(Point{tags: []}.tags)', false],
  ["has(Point{label: ''}.label) && has(Point{next: Point{}}.next)", true],
  ['Point{x: 1, tags: ["a"]} == test.v1.Point{tags: ["a"], x: 1}', true],
  ['Point{x: 0} == .test.v1.Point{}', true],
  ['Point{next: Point{x: 2}}.next.next.x', 0n],
  ['Point{color: Color.BLUE}.color == 1 && Color.RED == 0', true],
  ['Point{}.?x.hasValue() || Point{x: 3}.?next.hasValue()', false],
  ['Point{?x: optional.of(4)}.x + Point{?x: optional.none()}.x', 4n],
  ['Point{weight: 0.5}.weight', 0.5],
];
const messageErrors: [string, RegExp][] = [
  ['Point{small: 2147483648}', /range/],
  ['Point{x: null}', /unsupported field type/],
];

// Extensions cel-go has and Kubernetes does not enable: only environments that name them get them.
const extEnv = new CelEnvironment({ variables: {}, extensions: ['math', 'encoders', 'block'] });
const extensionCases: [string, unknown][] = [
  ['math.greatest(1, 2u, 3.5)', 3.5],
  ['math.least([3, -2, 7])', -2n],
  ['math.bitShiftRight(-1024, 3)', 2305843009213693824n],
  ['math.round(-1.5) == -2.0 && math.trunc(-1.5) == -1.0', true],
  ["base64.decode('aGVsbG8') == b'hello' && base64.encode(b'hi') == 'aGk='", true],
  ['cel.block([1, cel.index(0) + 1, [cel.index(1)]], cel.index(2)[0] * cel.index(1))', 4n],
  ['cel.block([[1, 2]], cel.index(0).map(cel.iterVar(0, 0), cel.iterVar(0, 0) * 10))', [10n, 20n]],
];

// Validation rules over `date-time` fields whose values differ below the millisecond.
const ruleEngine = createCelRuleEngine();
const times: Schema = {
  type: 'object',
  properties: {
    start: { type: 'string', format: 'date-time' },
    end: { type: 'string', format: 'date-time' },
    timeout: { type: 'string', format: 'duration' },
    stamps: { type: 'array', maxItems: 4, items: { type: 'string', format: 'date-time' } },
  },
};
const A = '2024-01-01T00:00:00.000001Z';
const B = '2024-01-01T00:00:00.000002Z';
const ruleCases: [string, Record<string, unknown>, boolean][] = [
  ['self.start < self.end', { start: A, end: B }, true],
  ['self.start < self.end', { start: B, end: A }, false],
  ['self.start == self.end', { start: A, end: B }, false],
  ['self.start != self.end', { start: A, end: B }, true],
  ['self.start <= self.end', { start: A, end: A }, true],
  ['timestamp(string(self.start)) < timestamp(string(self.end))', { start: A, end: B }, true],
  ["self.start > timestamp('2024-01-01T00:00:00.000001Z')", { start: B }, true],
  ["self.end - self.start == duration('1us')", { start: A, end: B }, true],
  ["string(self.start) == '2024-01-01T00:00:00.000001Z'", { start: A }, true],
  ['self.start + self.timeout < self.end', { start: A, end: B, timeout: '500ns' }, true],
  ['self.timeout + self.start < self.end', { start: A, end: B, timeout: '1us' }, false],
  ['self.timeout + self.start <= self.end', { start: A, end: B, timeout: '1us' }, true],
  ['self.start in self.stamps', { start: A, stamps: [B] }, false],
  ['self.stamps.isSorted()', { stamps: [B, A] }, false],
];

describe('rules over date-time fields below the millisecond', () => {
  it.each(ruleCases)('%s with %j', (rule, self, ok) => {
    const res = ruleEngine.compileRule({ rule }, times, {}).evaluate(self, undefined);
    expect(res.ok).toBe(ok);
  });
  it('converts date-time values to the nanosecond', () => {
    const a = parseTimestamp('2024-01-01T00:00:00.123456789+02:00');
    const b = parseTimestamp('2024-01-01T00:00:00.123456788+02:00');
    const env2 = new CelEnvironment({ variables: { a: 'google.protobuf.Timestamp', b: 'google.protobuf.Timestamp' } });
    expect(env2.compile('string(a)').evaluate({ a })).toBe('2023-12-31T22:00:00.123456789Z');
    expect(env2.compile('a > b && a != b').evaluate({ a, b })).toBe(true);
    expect(parseTimestamp('2024-01-01')?.toISOString()).toBe('2024-01-01T00:00:00.000Z');
  });
});

describe('conformance fixes in the wrapper layer', () => {
  it.each(cases)('%s', (expr, want) => {
    expect(env.compile(expr).evaluate(vars)).toEqual(want);
  });
  it.each(errors)('%s fails at run time', (expr, msg) => {
    expect(() => env.compile(expr).evaluate(vars)).toThrow(msg);
  });
  it.each(messageCases)('declared messages: %s', (expr, want) => {
    expect(messageEnv.compile(expr).evaluate({})).toEqual(want);
  });
  it.each(messageErrors)('declared messages: %s fails at run time', (expr, msg) => {
    expect(() => messageEnv.compile(expr).evaluate({})).toThrow(msg);
  });
  it('rejects has() and literals of fields a message does not declare', () => {
    expect(() => messageEnv.compile('has(Point{}.nope)')).toThrow(/undefined field 'nope'/);
    expect(() => messageEnv.compile('Point{nope: 1}')).toThrow(/undefined field 'nope'/);
  });
  it.each(extensionCases)('opt-in extensions: %s', (expr, want) => {
    expect(extEnv.compile(expr).evaluate({})).toEqual(want);
  });
  it('keeps the opt-in extensions out of environments that do not name them', () => {
    expect(() => env.compile('math.greatest(1, 2)')).toThrow(/Unknown variable: math/);
    expect(() => env.compile("base64.encode(b'a')")).toThrow(/Unknown variable: base64/);
    expect(() => env.compile('cel.block([1], cel.index(0))')).toThrow(/no matching overload/);
  });
  it.each([
    ['google.protobuf.Int64Value{value: 1}', "_message_literal('google.protobuf.Int64Value', 'value', 1)"],
    ["google.protobuf.Struct{fields: {'a': google.protobuf.Value{}}}", "_message_literal('google.protobuf.Struct', 'fields', {'a': _message_literal('google.protobuf.Value')})"],
    ["x in {'a': 1}", "x in {'a': 1}"],
    ['a.b{c: 1}', 'a.b{c: 1}'],
  ])('rewrites the message literal %s', (src, want) => {
    expect(rewriteMessageSyntax(src)).toBe(want);
  });
  it.each([
    ['self.a ? [1] : [2]', 'self.a ? [1] : [2]'],
    ['m[?k]', 'm[?k]'],
    ['[1, ?x]', '([1] + _optional_list_entry(x))'],
    ["{?'k': v}", "_optional_map_entry({}, 'k', v)"],
    ['x > .5', 'x > 0.5'],
    ["'?[{' + s", "'?[{' + s"],
    ["br'\\d' + rb\"x\"", "b'\\\\d' + b\"x\""],
  ])('rewrites %s', (src, want) => {
    expect(rewriteOptionalEntries(src)).toBe(want);
  });
});
