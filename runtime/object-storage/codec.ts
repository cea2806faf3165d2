// The storage codec: objects are stored as JSON text without metadata.resourceVersion; the
// revision a backend reports is stamped back on read (upstream's etcd3 store and its Versioner).

import type { Obj } from '../api/object.ts';
import { jsonText } from '../json/stringify.ts';

/** Parses a stored value and stamps `revision` as its resourceVersion. */
export function decodeStored(value: string, revision: number): Obj {
  const obj = JSON.parse(value) as Obj;
  metadataOf(obj).resourceVersion = String(revision);
  return obj;
}

/** The text stored for `obj`: JSON without metadata.resourceVersion (linear in depth for a deep object: runtime/json/stringify.ts). */
export function encodeForStorage(obj: Obj): string {
  return jsonText(withoutResourceVersion(obj));
}

/** A copy of `o` without metadata.resourceVersion (a copy rather than `delete`, which leaves V8 a slow dictionary object). */
export function withoutResourceVersion(o: Obj): Obj {
  const { resourceVersion: _rv, ...metadata } = (o.metadata ?? {}) as Record<string, unknown>;
  return { ...o, metadata };
}

function metadataOf(obj: Obj): Record<string, unknown> {
  if (obj.metadata === null || typeof obj.metadata !== 'object' || Array.isArray(obj.metadata)) obj.metadata = {};
  return obj.metadata as Record<string, unknown>;
}
