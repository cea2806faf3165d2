// Secret (api-conventions 9.1): `stringData` is write-only input merged into `data` (each value as
// its UTF-8 bytes, overwriting data[key]) before defaulting and validation, and never stored or
// returned; `type` defaults to Opaque.
//
// `data` values are []byte upstream, decoded with the body before stringData is merged
// (byte-fields.ts): 400 with Go's decode offset on every write path, never any part of the value.

import { isObj, type Obj } from '../../api/object.ts';
import type { Strategy } from '../strategy.ts';
import { decodeByteMap } from './byte-fields.ts';

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
    decodeByteMap(obj, 'data', 'Secret');
    mergeStringData(obj);
  },
  prepareForUpdate(obj) {
    decodeByteMap(obj, 'data', 'Secret');
    mergeStringData(obj);
  },
};
