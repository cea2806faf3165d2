// A quantity cell in its canonical form, as upstream's resource.Quantity String() prints it.
import type { CellFormatter } from './types.ts';
import { quantityToString, tryParseQuantity } from '../quantity/quantity.ts';

export function canonicalQuantity(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const q = tryParseQuantity(value);
  return q ? quantityToString(q) : value;
}

export const quantity: CellFormatter = (value) => canonicalQuantity(value);
