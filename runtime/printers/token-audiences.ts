// CSIDriver TokenRequests cell: the audiences joined by ",", "" for an empty list (printCSIDriver).
import type { CellFormatter } from './types.ts';
import { isObj } from '../api/object.ts';

export const tokenAudiences: CellFormatter = (value) =>
  Array.isArray(value) ? value.map((t) => (isObj(t) && typeof t.audience === 'string' ? t.audience : '')).join(',') : undefined;
