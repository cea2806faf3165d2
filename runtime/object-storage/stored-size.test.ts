import { describe, expect, it } from 'vitest';
import type { Obj } from '../api/object.ts';
import { ApiError } from '../errors/api-error.ts';
import { refuseOversized, storedSizeAtLeast } from './stored-size.ts';

/** 10,000 levels of `{"a": ...}` around a string, built without recursion. */
function nested(depth: number): Obj {
  let v: Obj = { a: 'x' };
  for (let i = 1; i < depth; i++) v = { a: v };
  return v;
}

const keys = (n: number, value: string): Record<string, string> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value]));

describe('storedSizeAtLeast', () => {
  // jsonBytes: the object's JSON length where JSON.stringify (recursive) cannot take it
  const cases: { name: string; obj: Obj; exact?: number; jsonBytes?: number }[] = [
    { name: 'strings with their names', obj: { a: 'bc' }, exact: '"a":"bc",'.length },
    { name: 'numbers, booleans and null at their fewest bytes', obj: { n: 12345, t: true, f: false, z: null }, exact: '"n":1,'.length + '"t":true,'.length + '"f":false,'.length + '"z":null,'.length },
    { name: 'list items without names', obj: { l: ['ab', 1] }, exact: '"ab",'.length + '1,'.length },
    { name: 'empty maps and lists count nothing (omitempty may drop them)', obj: { m: {}, l: [], n: { o: {} } }, exact: 0 },
    { name: 'metadata.managedFields counts nothing (recomputed by the write)', obj: { metadata: { name: 'x', managedFields: [{ manager: 'm'.repeat(1000) }] } }, exact: '"name":"x",'.length },
    { name: 'a field named managedFields elsewhere counts', obj: { spec: { managedFields: ['abc'] } }, exact: '"abc",'.length },
    { name: 'a ConfigMap of 1,000 keys', obj: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: keys(1000, 'v') } },
    { name: 'non-ASCII strings (UTF-16 units, at most their UTF-8 bytes)', obj: { s: 'é€😀' } },
    { name: 'nested 10,000 levels deep', obj: nested(10_000), exact: '"a":"x",'.length, jsonBytes: 10_000 * '{"a":}'.length + '"x"'.length },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const n = storedSizeAtLeast(c.obj, Number.MAX_SAFE_INTEGER);
      if (c.exact !== undefined) expect(n).toBe(c.exact);
      // a lower bound of the stored JSON (whose last member has no comma: one byte of slack)
      expect(n).toBeLessThanOrEqual((c.jsonBytes ?? Buffer.byteLength(JSON.stringify(c.obj))) + 1);
    });
  }

  it('stops counting soon after passing the limit', () => {
    const n = storedSizeAtLeast({ data: keys(100_000, 'v') }, 100);
    expect(n).toBeGreaterThan(100);
    expect(n).toBeLessThan(100 + '"k99999":"v",'.length); // stops at the member that passes it
  });
});

describe('refuseOversized', () => {
  // body: the bytes of the request body the object was decoded from (none: a patch's result, say)
  const cases: { name: string; obj: Obj; body?: number; max: number | undefined; refused: boolean }[] = [
    { name: 'over the bound', obj: { data: keys(100, 'v'.repeat(20)) }, body: 3000, max: 1000, refused: true },
    { name: 'under the bound', obj: { data: keys(10, 'v') }, body: 3000, max: 1000, refused: false },
    { name: 'over the bound, from a body within it: left to the storage (not counted)', obj: { data: keys(100, 'v'.repeat(20)) }, body: 1000, max: 1000, refused: false },
    { name: 'over the bound, from no body: left to the storage', obj: { data: keys(100, 'v'.repeat(20)) }, max: 1000, refused: false },
    { name: 'no bound (0)', obj: { data: keys(100, 'v'.repeat(20)) }, body: 3000, max: 0, refused: false },
    { name: 'no bound known', obj: { data: keys(100, 'v'.repeat(20)) }, body: 3000, max: undefined, refused: false },
    { name: 'large only through managedFields', obj: { metadata: { managedFields: [{ fieldsV1: keys(100, 'v'.repeat(20)) }] } }, body: 3000, max: 1000, refused: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      let err: unknown;
      try {
        refuseOversized(c.obj, c.max, c.body);
      } catch (e) {
        err = e;
      }
      if (!c.refused) expect(err).toBeUndefined();
      else {
        expect(err).toBeInstanceOf(ApiError);
        expect((err as ApiError).code).toBe(413);
        expect((err as ApiError).message).toBe('Request entity too large: etcdserver: request is too large');
      }
    });
  }
});
