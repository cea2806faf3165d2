// Access modes abbreviated as upstream's helper.GetAccessModesAsString: fixed order, no duplicates.
import type { CellFormatter } from './types.ts';

const ABBREVIATIONS: ReadonlyArray<readonly [string, string]> = [
  ['ReadWriteOnce', 'RWO'],
  ['ReadOnlyMany', 'ROX'],
  ['ReadWriteMany', 'RWX'],
  ['ReadWriteOncePod', 'RWOP'],
];

export function accessModesAsString(modes: unknown): string {
  const present = new Set(Array.isArray(modes) ? modes : []);
  return ABBREVIATIONS.filter(([mode]) => present.has(mode)).map(([, short]) => short).join(',');
}

export const accessModes: CellFormatter = (value) => accessModesAsString(value);
