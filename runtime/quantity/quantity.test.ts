import { describe, expect, it } from 'vitest';
import {
  addQuantity, compareQuantity, parseQuantity, quantityAsApproximateFloat, quantityAsInteger, quantitySign, quantityToString,
  subQuantity, QUANTITY_FORMAT_ERROR,
} from './quantity.ts';

const NANO = 1_000_000_000n;

describe('parseQuantity', () => {
  const ok: [string, bigint, string][] = [
    ['0', 0n, '0'],
    ['1', NANO, '1'],
    ['1Gi', 1073741824n * NANO, '1Gi'],
    ['1.5Gi', 1610612736n * NANO, '1536Mi'],
    ['500m', 500_000_000n, '500m'],
    ['0.5', 500_000_000n, '500m'],
    ['1e3', 1000n * NANO, '1e3'],
    ['1000', 1000n * NANO, '1k'],
    ['-1', -NANO, '-1'],
    ['+2k', 2000n * NANO, '2k'],
    ['1n', 1n, '1n'],
    ['0.1n', 1n, '1n'],
    ['10E-3', 10_000_000n, '10e-3'],
  ];
  for (const [s, nanos, canon] of ok) {
    it(`parses ${s}`, () => {
      const q = parseQuantity(s);
      expect(q.nanos).toBe(nanos);
      expect(quantityToString(q)).toBe(canon);
    });
  }
  for (const bad of ['', 'abc', '1.5.5', '1Gx x']) {
    it(`rejects ${JSON.stringify(bad)} with upstream's message`, () => {
      expect(() => parseQuantity(bad)).toThrow(QUANTITY_FORMAT_ERROR);
    });
  }
  it('rejects an unknown suffix', () => {
    expect(() => parseQuantity('1ki')).toThrow("unable to parse quantity's suffix");
    expect(() => parseQuantity('1e')).toThrow("unable to parse quantity's suffix");
  });
  it('caps at the int64 maximum', () => {
    expect(quantityAsInteger(parseQuantity('1e100'))).toBe(9223372036854775807n);
  });
});

describe('arithmetic', () => {
  it('compares canonically', () => {
    expect(compareQuantity(parseQuantity('1Gi'), parseQuantity('1024Mi'))).toBe(0);
    expect(compareQuantity(parseQuantity('1G'), parseQuantity('1Gi'))).toBe(-1);
    expect(compareQuantity(parseQuantity('2'), parseQuantity('1500m'))).toBe(1);
  });
  it('sign, add, sub, asInteger, asApproximateFloat', () => {
    expect(quantitySign(parseQuantity('-5m'))).toBe(-1);
    expect(quantitySign(parseQuantity('0'))).toBe(0);
    expect(quantityAsInteger(addQuantity(parseQuantity('1'), parseQuantity('500m')))).toBeNull();
    expect(quantityAsInteger(subQuantity(parseQuantity('2k'), parseQuantity('1k')))).toBe(1000n);
    expect(quantityAsApproximateFloat(parseQuantity('1.5'))).toBe(1.5);
  });
});
