// StorageClass Name cell: the name with " (default)" when the default-class annotation is "true" (printStorageClass).
import type { CellFormatter } from './types.ts';
import { metaOf } from '../api/object.ts';

export const DEFAULT_CLASS_ANNOTATION = 'storageclass.cluster.io/is-default-class';

export const defaultClassName: CellFormatter = (value, obj) => {
  const annotations = metaOf(obj).annotations;
  return annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true' ? `${String(value ?? '')} (default)` : value;
};
