// A PersistentVolume's Claim cell: `namespace/name` of spec.claimRef, "" when unbound (printPersistentVolume).
import type { CellFormatter } from './types.ts';
import { isObj } from '../api/object.ts';

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

export const claimRef: CellFormatter = (value) => (isObj(value) ? `${text(value.namespace)}/${text(value.name)}` : undefined);
