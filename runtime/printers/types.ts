// A named cell formatter: computes one Table cell as upstream's print function does for that column.
import type { Obj } from '../api/object.ts';

/**
 * `value` is what the column's jsonPath finds (undefined when absent); `obj` the whole object for
 * cells that depend on other fields; `now` the time the table is built at. Returning undefined or
 * null leaves the cell to the column's `whenAbsent`.
 */
export type CellFormatter = (value: unknown, obj: Obj, now: number) => unknown;
