// Kubernetes quantity library, on the Quantity parser of runtime/quantity (the one the validators use).

import {
  addQuantity,
  compareQuantity,
  parseQuantity,
  quantityAsApproximateFloat,
  quantityAsInteger,
  quantityFromInteger,
  quantityIsInteger,
  quantitySign,
  quantityToString,
  subQuantity,
  tryParseQuantity,
  type Quantity,
} from '../../quantity/quantity.ts';
import type { CelRegistrar } from '../registrar.ts';
import { celError } from '../values.ts';

export class CelQuantity {
  constructor(readonly q: Quantity) {}
  toString(): string {
    return quantityToString(this.q);
  }
  celEquals(o: unknown): boolean {
    return o instanceof CelQuantity && compareQuantity(this.q, o.q) === 0;
  }
}

export function quantityLibrary(r: CelRegistrar): void {
  r.type('Quantity', CelQuantity);
  r.operator('Quantity == Quantity', ((a: CelQuantity, b: CelQuantity) => a.celEquals(b)) as never);
  r.fn('quantity(string): Quantity', ((s: string) => {
    try {
      return new CelQuantity(parseQuantity(s));
    } catch (e) {
      throw celError(`quantities must match the regular expression: ${(e as Error).message}`);
    }
  }) as never);
  r.fn('isQuantity(string): bool', ((s: string) => tryParseQuantity(s) !== null) as never);
  r.fn('Quantity.sign(): int', ((a: CelQuantity) => BigInt(quantitySign(a.q))) as never);
  r.fn('Quantity.isGreaterThan(Quantity): bool', ((a: CelQuantity, b: CelQuantity) => compareQuantity(a.q, b.q) > 0) as never);
  r.fn('Quantity.isLessThan(Quantity): bool', ((a: CelQuantity, b: CelQuantity) => compareQuantity(a.q, b.q) < 0) as never);
  r.fn('Quantity.compareTo(Quantity): int', ((a: CelQuantity, b: CelQuantity) => BigInt(compareQuantity(a.q, b.q))) as never);
  r.fn('Quantity.add(Quantity): Quantity', ((a: CelQuantity, b: CelQuantity) => new CelQuantity(addQuantity(a.q, b.q))) as never);
  r.fn('Quantity.add(int): Quantity', ((a: CelQuantity, b: bigint) => new CelQuantity(addQuantity(a.q, quantityFromInteger(b)))) as never);
  r.fn('Quantity.sub(Quantity): Quantity', ((a: CelQuantity, b: CelQuantity) => new CelQuantity(subQuantity(a.q, b.q))) as never);
  r.fn('Quantity.sub(int): Quantity', ((a: CelQuantity, b: bigint) => new CelQuantity(subQuantity(a.q, quantityFromInteger(b)))) as never);
  r.fn('Quantity.isInteger(): bool', ((a: CelQuantity) => quantityIsInteger(a.q)) as never);
  r.fn('Quantity.asInteger(): int', ((a: CelQuantity) => {
    const v = quantityAsInteger(a.q);
    if (v === null) throw celError('cannot convert value to integer');
    return v;
  }) as never);
  r.fn('Quantity.asApproximateFloat(): double', ((a: CelQuantity) => quantityAsApproximateFloat(a.q)) as never);
}
