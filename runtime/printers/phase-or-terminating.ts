// PV and PVC Status cells: "Terminating" once deletion started, else status.phase (printPersistentVolume[Claim]).
import type { CellFormatter } from './types.ts';
import { metaOf } from '../api/object.ts';

export const phaseOrTerminating: CellFormatter = (value, obj) => (metaOf(obj).deletionTimestamp ? 'Terminating' : value);
