// An Event's Object cell: `<kind in lower case>/<name>` of involvedObject, the kind alone without a name (printEvent).
import type { CellFormatter } from './types.ts';
import { isObj } from '../api/object.ts';

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

export const eventObject: CellFormatter = (value) => {
  const ref = isObj(value) ? value : {};
  const kind = text(ref.kind).toLowerCase();
  const name = text(ref.name);
  return name === '' ? kind : `${kind}/${name}`;
};
