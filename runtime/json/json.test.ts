import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { serverStackArgs } from '../stack-size.ts';
import { isObject } from './is-object.ts';
import { jsonEqual } from './deep-equal.ts';
import { deepCopy, jsonRoundTrip } from './clone.ts';

/** An object with `__proto__` as an own key, as JSON.parse gives it. */
const protoKey = (v: unknown): Record<string, unknown> => JSON.parse(`{"__proto__": ${JSON.stringify(v)}}`) as Record<string, unknown>;


describe('isObject', () => {
  const cases: [string, unknown, boolean][] = [
    ['plain object', { a: 1 }, true],
    ['empty object', {}, true],
    ['null-prototype object', Object.create(null), true],
    ['Date', new Date(0), true],
    ['Uint8Array', new Uint8Array(2), true],
    ['array', [], false],
    ['null', null, false],
    ['undefined', undefined, false],
    ['string', 'x', false],
    ['number', 0, false],
  ];
  it.each(cases)('%s', (_name, v, want) => expect(isObject(v)).toBe(want));
});

describe('jsonEqual', () => {
  const cases: [string, unknown, unknown, boolean][] = [
    ['same scalar', 1, 1, true],
    ['number and string', 1, '1', false],
    ['NaN is unequal to itself', NaN, NaN, false],
    ['null and undefined differ', null, undefined, false],
    ['null and absent differ', { a: null }, {}, false],
    ['null and null', null, null, true],
    ['key order ignored', { a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }, true],
    ['nested difference', { a: { b: [1, 2] } }, { a: { b: [1, 3] } }, false],
    ['array order matters', [1, 2], [2, 1], false],
    ['array and object with the same keys', ['x'], { 0: 'x' }, false],
    ['object and array', { 0: 'x' }, ['x'], false],
    ['arrays of different length', [1], [1, 2], false],
    ['undefined value counts as absent (left)', { a: 1, b: undefined }, { a: 1 }, true],
    ['undefined value counts as absent (right)', { a: 1 }, { a: 1, b: undefined }, true],
    ['undefined values on both sides', { a: undefined }, { b: undefined }, true],
    ['undefined against a value', { a: undefined }, { a: 1 }, false],
    ['undefined array items are items', [undefined], [], false],
    ['extra key on the right', { a: 1 }, { a: 1, b: 2 }, false],
    ['extra key on the left', { a: 1, b: 2 }, { a: 1 }, false],
    ['same key count, different keys', { a: 1 }, { b: 1 }, false],
    ['__proto__ own keys compared', protoKey({ x: 1 }), protoKey({ x: 1 }), true],
    ['__proto__ own keys differ', protoKey({ x: 1 }), protoKey({ x: 2 }), false],
    ['__proto__ own key against none', protoKey(1), {}, false],
    ['inherited keys are not read', Object.create({ a: 1 }), {}, true],
  ];
  it.each(cases)('%s', (_name, a, b, want) => {
    expect(jsonEqual(a, b)).toBe(want);
    expect(jsonEqual(b, a)).toBe(want);
  });
});

describe('deepCopy', () => {
  const cases: [string, unknown][] = [
    ['scalar', 'x'],
    ['null', null],
    ['undefined', undefined],
    ['object with lists', { a: [1, { b: null }], c: 'd' }],
    ['undefined value kept', { a: undefined }],
    ['__proto__ kept as an own key', protoKey({ polluted: true })],
  ];
  it.each(cases)('%s', (_name, v) => {
    const copy = deepCopy(v);
    expect(copy).toStrictEqual(v);
    expect(jsonEqual(copy, v)).toBe(true);
    if (typeof v === 'object' && v !== null) expect(copy).not.toBe(v);
  });

  it('shares no nested object with its source', () => {
    const src = { a: { b: [{ c: 1 }] } };
    const copy = deepCopy(src);
    copy.a.b[0].c = 2;
    expect(src.a.b[0].c).toBe(1);
  });

  it('keeps __proto__ an own key without changing the prototype', () => {
    const copy = deepCopy(protoKey({ polluted: true }));
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('jsonRoundTrip', () => {
  const cases: [string, unknown, unknown][] = [
    ['undefined stays undefined', undefined, undefined],
    ['undefined object value dropped', { a: undefined, b: 1 }, { b: 1 }],
    ['undefined array item becomes null', [undefined, 1], [null, 1]],
    ['NaN becomes null', [NaN], [null]],
    ['Date becomes its ISO string', { t: new Date(0) }, { t: '1970-01-01T00:00:00.000Z' }],
    ['__proto__ kept as an own key', protoKey(1), protoKey(1)],
  ];
  it.each(cases)('%s', (_name, v, want) => expect(jsonRoundTrip(v)).toStrictEqual(want));
});

describe('values nested 10,000 levels (upstream\'s limit), in a process with the server\'s stack', () => {
  it('compare and copy without running out of stack', () => {
    const url = (f: string): string => JSON.stringify(new URL(f, import.meta.url).href);
    const script = `
      const { jsonEqual } = await import(${url('./deep-equal.ts')});
      const { deepCopy, jsonRoundTrip } = await import(${url('./clone.ts')});
      const nested = (leaf) => { let v = leaf; for (let i = 0; i < 10000; i++) v = i % 2 ? [v] : { a: v }; return v; };
      const deep = nested(1);
      const out = {};
      for (const [name, f] of Object.entries({
        equal: () => jsonEqual(deep, nested(1)),
        unequal: () => jsonEqual(deep, nested(2)),
        deepCopy: () => jsonEqual(deepCopy(deep), deep),
        jsonRoundTrip: () => jsonEqual(jsonRoundTrip(deep), deep),
      })) { try { out[name] = f(); } catch (e) { out[name] = e.constructor.name; } }
      console.log(JSON.stringify(out));`;
    const cwd = fileURLToPath(new URL('../..', import.meta.url));
    const got = execFileSync(process.execPath, [...serverStackArgs(), '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', cwd });
    expect(JSON.parse(got)).toEqual({ equal: true, unequal: false, deepCopy: true, jsonRoundTrip: true });
  });
});
