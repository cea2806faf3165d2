// PVC Access Modes cell: status.accessModes abbreviated once spec.volumeName is set, "" before (printPersistentVolumeClaim).
import type { CellFormatter } from './types.ts';
import { accessModesAsString } from './access-modes.ts';
import { namesVolume } from './names-volume.ts';

export const boundClaimAccessModes: CellFormatter = (value, obj) => (namesVolume(obj) ? accessModesAsString(value) : '');
