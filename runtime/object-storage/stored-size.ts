// How large an object will at least be once stored, known before the costly steps of a write
// (validation, managedFields, the storage encode): a write whose object alone is over the storage's
// bound (etcd's --max-request-bytes) is refused there with the answer the storage would give.

import type { Obj } from '../api/object.ts';
import { ApiError } from '../errors/api-error.ts';
import { TOO_LARGE_MESSAGE } from '../storage/request-size.ts';

/**
 * A lower bound of the bytes `obj` takes as stored JSON, counted until it passes `limit`: every
 * scalar with the name it has in its object (a string's UTF-16 length is at most its UTF-8 length,
 * and JSON escapes only add). Left out, because a write may still drop or replace them: empty maps
 * and lists (omitempty), and metadata.managedFields (every write recomputes them). Iterative, as a
 * request may nest 10,000 levels deep.
 */
export function storedSizeAtLeast(obj: Obj, limit: number): number {
  let total = 0;
  const stack: unknown[] = [obj];
  while (stack.length > 0 && total <= limit) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i];
        if (item !== null && typeof item === 'object') stack.push(item);
        else if ((total += scalarBytes(item) + 1) > limit) break;
      }
    } else if (v !== null && typeof v === 'object') {
      const members = v as Record<string, unknown>;
      const names = Object.keys(members);
      for (let i = 0; i < names.length; i++) {
        const name = names[i];
        const item = members[name];
        if (item !== null && typeof item === 'object') {
          if (v === obj.metadata && name === 'managedFields') continue;
          stack.push(item);
        } else if (item !== undefined) {
          total += name.length + 3 + scalarBytes(item) + 1; // "name":value,
          if (total > limit) break;
        }
      }
    }
  }
  return total;
}

/** The fewest bytes a scalar takes in JSON. */
function scalarBytes(v: unknown): number {
  switch (typeof v) {
    case 'string':
      return v.length + 2;
    case 'boolean':
      return v ? 4 : 5;
    case 'number':
      return 1;
    default:
      return 4; // null
  }
}

/**
 * 413, as the storage answers a write over its bound, when `obj` (without managedFields) is
 * already more than `maxBytes` bytes of JSON; `maxBytes` 0 or undefined: no bound. Counting costs
 * about what a JSON.stringify does, so it is done only for an object decoded from a request body of
 * `bodyBytes`, larger than the bound: any other write over it is refused by the storage, after its costly steps.
 */
export function refuseOversized(obj: Obj, maxBytes: number | undefined, bodyBytes: number | undefined): void {
  if (!maxBytes) return;
  if ((bodyBytes ?? 0) <= maxBytes) return;
  if (storedSizeAtLeast(obj, maxBytes) > maxBytes) throw ApiError.requestEntityTooLarge(TOO_LARGE_MESSAGE);
}
