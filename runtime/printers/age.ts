// The Age cell: time since the timestamp as upstream's translateTimestampSince prints it.
import type { CellFormatter } from './types.ts';
import { humanDuration } from './human-duration.ts';

export const age: CellFormatter = (value, _obj, now) => {
  const t = typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
};
