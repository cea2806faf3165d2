// Plain JSON objects as the API handles them (upstream apimachinery's meta), and small helpers on their metadata.
import { isObject } from '../json/is-object.ts';

// runtime/json's helpers under the names the registry's callers use: deepClone is the JSON round
// trip (undefined values dropped, as storage would), deepEqual the equality that ignores them.
export { isObject as isObj } from '../json/is-object.ts';
export { jsonRoundTrip as deepClone } from '../json/clone.ts';
export { jsonEqual as deepEqual } from '../json/deep-equal.ts';

export type Obj = Record<string, unknown>;

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string | null;
  deletionTimestamp?: string | null;
  deletionGracePeriodSeconds?: number | null;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: unknown[];
  managedFields?: unknown[];
  selfLink?: string;
  [k: string]: unknown;
}


/** The object's metadata, created when absent or not an object. */
export function meta(obj: Obj): ObjectMeta {
  if (!isObject(obj.metadata)) obj.metadata = {};
  return obj.metadata as ObjectMeta;
}

/** Read-only view of metadata (never creates it). */
export function metaOf(obj: Obj): ObjectMeta {
  return isObject(obj.metadata) ? (obj.metadata as ObjectMeta) : {};
}

/** RFC 3339 UTC with whole seconds, as upstream's metav1.Time. */
export function nowTimestamp(now: Date = new Date()): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
export const MAX_GENERATE_NAME_PREFIX = 58;

/** Upstream's SimpleNameGenerator: prefix cut to 58 chars plus 5 random characters. */
export function generateName(prefix: string): string {
  const base = prefix.length > MAX_GENERATE_NAME_PREFIX ? prefix.slice(0, MAX_GENERATE_NAME_PREFIX) : prefix;
  let s = '';
  for (let i = 0; i < 5; i++) s += GENERATE_ALPHABET[Math.floor(Math.random() * GENERATE_ALPHABET.length)];
  return base + s;
}
