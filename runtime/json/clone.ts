// Deep copies of JSON values: a structural copy, and the copy a JSON round trip gives.
import type { JsonObject } from './is-object.ts';

/**
 * A deep copy of a JSON value: arrays and objects are copied (own enumerable keys, `__proto__` kept
 * as an own key, undefined values kept), anything else is returned as is. Several times faster than
 * structuredClone or a JSON round trip; not for Date or typed arrays (they copy as plain objects).
 */
export function deepCopy<T>(v: T): T {
  return copyJson(v) as T;
}

// Recurses once per nesting level (the decoder bounds the depth); loops over list items and keys.
function copyJson(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = copyJson(v[i]);
    return out;
  }
  const out: JsonObject = {};
  for (const k of Object.keys(v)) {
    const x = copyJson((v as JsonObject)[k]);
    if (k === '__proto__') Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
    else out[k] = x;
  }
  return out;
}

/**
 * The value as it would come back from the wire: `JSON.parse(JSON.stringify(v))`, so undefined
 * object values are dropped, undefined array items and non-finite numbers become null and toJSON
 * applies (a Date becomes its ISO string). Undefined stays undefined. Use it where a stored or sent
 * value must look exactly as its serialization; deepCopy is the faster copy otherwise.
 */
export function jsonRoundTrip<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}
