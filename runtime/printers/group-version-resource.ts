// StorageVersionMigration Resource cell: `resource.version.group` (printStorageVersionMigration).
import type { CellFormatter } from './types.ts';
import { isObj } from '../api/object.ts';

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

export const groupVersionResource: CellFormatter = (value) =>
  isObj(value) ? `${text(value.resource)}.${text(value.version)}.${text(value.group)}` : undefined;
