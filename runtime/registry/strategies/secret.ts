// Secret (api-conventions 9.1): `stringData` is write-only input merged into `data` (each value as
// its UTF-8 bytes, overwriting data[key]) before defaulting and validation, and never stored or
// returned; `type` defaults to Opaque.

import { isObj, type Obj } from '../object.ts';
import type { Strategy } from '../strategy.ts';

function mergeStringData(obj: Obj): void {
  const sd = obj.stringData;
  delete obj.stringData;
  if (isObj(sd)) {
    const data: Record<string, unknown> = isObj(obj.data) ? obj.data : {};
    for (const [k, v] of Object.entries(sd)) data[k] = Buffer.from(String(v), 'utf8').toString('base64');
    obj.data = data;
  }
  if (obj.type === undefined || obj.type === '') obj.type = 'Opaque';
}

export const secretStrategy: Strategy = {
  prepareForCreate(obj) {
    mergeStringData(obj);
  },
  prepareForUpdate(obj) {
    mergeStringData(obj);
  },
};
