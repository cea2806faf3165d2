// A map of []byte values (Secret `data`, ConfigMap `binaryData`) as upstream's body decoder reads it:
// a value Go's base64 decoder refuses fails the whole request with 400
// `<Kind> in version "<v>" cannot be handled as a <Kind>: illegal base64 data at input byte N`, and a
// value it accepts is stored as its bytes, so line breaks and non-zero padding bits read back in
// canonical form. No message carries any part of a value.

import { ApiError } from '../../errors/api-error.ts';
import { base64ErrorOffset, base64ErrorText } from '../../schema/formats.ts';
import { isObj, type Obj } from '../../api/object.ts';

/** Decodes `obj[field]` in place: throws upstream's 400, or rewrites values to canonical base64. */
export function decodeByteMap(obj: Obj, field: string, kind: string): void {
  const map = obj[field];
  if (!isObj(map)) return;
  for (const [k, v] of Object.entries(map)) {
    if (typeof v !== 'string') continue; // the schema reports a wrong type (no value in that message)
    const at = base64ErrorOffset(v, true);
    if (at >= 0) {
      const av = typeof obj.apiVersion === 'string' && obj.apiVersion !== '' ? obj.apiVersion : 'v1';
      const version = av.slice(av.lastIndexOf('/') + 1);
      throw ApiError.badRequest(`${kind} in version ${JSON.stringify(version)} cannot be handled as a ${kind}: ${base64ErrorText(at)}`);
    }
    const canonical = Buffer.from(v, 'base64').toString('base64');
    if (canonical !== v) map[k] = canonical;
  }
}
