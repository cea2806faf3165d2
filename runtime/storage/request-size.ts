// The bound etcd puts on one write (its --max-request-bytes, default 1.5 MiB), kept by the backends
// that are not etcd, so that an object etcd (and upstream over etcd) refuses is refused on every
// backend, with etcd's answer (TooLarge, 413 at the edge). etcd measures the whole Raft request (the
// Txn with the key in its compare and its put, and a few dozen bytes of framing); this measures the
// key and the value, the part that grows, so it refuses a few hundred bytes later than etcd does.

import { StorageError } from './interface.ts';

/** etcd's default --max-request-bytes: 1.5 MiB. */
export const DEFAULT_MAX_REQUEST_BYTES = 1.5 * 1024 * 1024;

/** etcd's own text for a request over its limit (what the etcd backend reports too). */
export const TOO_LARGE_MESSAGE = 'etcdserver: request is too large';

/**
 * Throws TooLarge when `key` and `value` together are more than `maxBytes` bytes of UTF-8
 * (0: no bound). A string's UTF-8 length is at least its length in UTF-16 units and at most three
 * times it, so most writes are decided without counting bytes.
 */
export function checkRequestSize(key: string, value: string, maxBytes: number): void {
  if (maxBytes <= 0) return;
  const units = key.length + value.length;
  if (units * 3 <= maxBytes) return;
  if (units > maxBytes || Buffer.byteLength(key) + Buffer.byteLength(value) > maxBytes) {
    throw new StorageError('TooLarge', TOO_LARGE_MESSAGE, { key });
  }
}

/** A --max-request-bytes value: a whole number of bytes, 0 for no bound; undefined when it is none. */
export function parseMaxRequestBytes(text: string): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}
