// Plain JSON objects as the registry handles them, and small helpers on their metadata.

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

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The object's metadata, created when absent or not an object. */
export function meta(obj: Obj): ObjectMeta {
  if (!isObj(obj.metadata)) obj.metadata = {};
  return obj.metadata as ObjectMeta;
}

/** Read-only view of metadata (never creates it). */
export function metaOf(obj: Obj): ObjectMeta {
  return isObj(obj.metadata) ? (obj.metadata as ObjectMeta) : {};
}

export function deepClone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ao = a as Obj;
  const bo = b as Obj;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  if (ak.length !== bk.length) return false;
  return ak.every((k) => Object.prototype.hasOwnProperty.call(bo, k) && deepEqual(ao[k], bo[k]));
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
