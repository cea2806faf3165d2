// PVC Capacity cell: status.capacity.storage once spec.volumeName is set, the zero quantity when
// a bound claim has none, "" before (printPersistentVolumeClaim).
import type { CellFormatter } from './types.ts';
import { canonicalQuantity } from './quantity.ts';
import { namesVolume } from './names-volume.ts';

export const boundClaimCapacity: CellFormatter = (value, obj) => (namesVolume(obj) ? (canonicalQuantity(value) ?? '0') : '');
