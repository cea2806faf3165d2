// Table-driven checks of the wrapper-layer fixes found with the cel-spec conformance data, each in
// the shape a validation rule would use (typed self/oldSelf and dyn values).

import { describe, expect, it } from 'vitest';
import { CelEnvironment, Optional } from './engine.ts';
import { rewriteOptionalEntries } from './optional-syntax.ts';
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
  ["'%.0f'.format([2.5]) == '2'", true],
];

const errors: [string, RegExp][] = [
  ["timestamp('9999-12-31T23:59:59Z') + duration('1s')", /out of range/],
  ["duration('320000000000s')", /out of range/],
  ["string(b'\\xff')", /UTF-8/],
  ["'%x'.format([0.5])", /formatted/],
  ["ts.getHours('Not/AZone')", /time zone/],
];

describe('conformance fixes in the wrapper layer', () => {
  it.each(cases)('%s', (expr, want) => {
    expect(env.compile(expr).evaluate(vars)).toEqual(want);
  });
  it.each(errors)('%s fails at run time', (expr, msg) => {
    expect(() => env.compile(expr).evaluate(vars)).toThrow(msg);
  });
  it.each([
    ['self.a ? [1] : [2]', 'self.a ? [1] : [2]'],
    ['m[?k]', 'm[?k]'],
    ['[1, ?x]', '([1] + _optional_list_entry(x))'],
    ["{?'k': v}", "_optional_map_entry({}, 'k', v)"],
    ['x > .5', 'x > 0.5'],
    ["'?[{' + s", "'?[{' + s"],
  ])('rewrites %s', (src, want) => {
    expect(rewriteOptionalEntries(src)).toBe(want);
  });
});
