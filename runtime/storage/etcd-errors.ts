// etcd's and gRPC's failures as the storage interface's errors. etcd reports them as gRPC statuses
// whose text is etcd's own ("mvcc: required revision has been compacted"), so the text decides.

import { isStorageError, StorageError, type StorageErrorDetails } from './interface.ts';

/** What kind of failure an etcd call ended in; undefined: none of ours (a bug: the caller answers 500). */
export type EtcdFailure = 'Compacted' | 'FutureRevision' | 'TooLarge' | 'Unavailable';

const BY_TEXT: readonly [RegExp, EtcdFailure][] = [
  [/required revision has been compacted/, 'Compacted'],
  [/required revision is a future revision/, 'FutureRevision'],
  // etcd's --max-request-bytes, and gRPC's own message limits on either side
  [/request is too large|larger than max|message larger than/i, 'TooLarge'],
  [
    /unavailable|no connection established|deadline exceeded|ECONNREFUSED|ECONNRESET|EHOSTUNREACH|ENOTFOUND|ETIMEDOUT|circuit|leader changed|no leader|request timed out|timed out|connection (closed|reset)|failed to connect|stream removed|Call cancelled|Channel shutdown/i,
    'Unavailable',
  ],
];

/** The gRPC status codes (numeric) that mean the call did not get an answer from a working etcd. */
const UNAVAILABLE_GRPC_CODES = new Set([1 /* CANCELLED */, 4 /* DEADLINE_EXCEEDED */, 14 /* UNAVAILABLE */]);

export function classifyEtcdError(e: unknown): EtcdFailure | undefined {
  const text = e instanceof Error ? e.message : String(e);
  for (const [re, kind] of BY_TEXT) if (re.test(text)) return kind;
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === 'number' && UNAVAILABLE_GRPC_CODES.has(code)) return 'Unavailable';
  const name = e instanceof Error ? e.constructor.name : '';
  if (/Unavailable|DeadlineExceeded|BrokenCircuit|Cancelled/.test(name)) return 'Unavailable';
  return undefined;
}

/** One line of what went wrong, without a stack and without gRPC's noise. */
export function etcdCause(e: unknown): string {
  const text = (e instanceof Error ? e.message : String(e)).split('\n')[0];
  // OpenSSL's "<hex>:error:0A000412:SSL routines:<function>:<reason>:<file>:<line>:..." → its reason
  const ssl = /SSL routines:[^:]*:([^:]+)/.exec(text);
  if (ssl) {
    const reason = ssl[1].trim();
    return /alert bad certificate|certificate required/.test(reason)
      ? `TLS handshake failed: etcd refused the client certificate (${reason})`
      : `TLS handshake failed: ${reason}`;
  }
  return (
    text
      .replace(/^\d+ [A-Z_]+: /, '')
      .replace(/^No connection established\. Last error: (Error: )?/, '')
      .replace(/\s*Resolution note:.*$/, '')
      .trim() || 'unknown error'
  );
}

/**
 * The storage error for a failed etcd call, or the error itself when it is none of etcd's known
 * failures. `details` completes Compacted and FutureRevision (the caller knows the revisions).
 */
export function toStorageError(e: unknown, key: string | undefined, details: StorageErrorDetails = {}): unknown {
  if (isStorageError(e)) return e;
  const kind = classifyEtcdError(e);
  switch (kind) {
    case 'Compacted':
      return new StorageError('Compacted', `revision has been compacted (${details.compactedRevision ?? 'unknown'})`, { key, ...details });
    case 'FutureRevision':
      return new StorageError('FutureRevision', `revision is ahead of the store (${details.revision ?? 'unknown'})`, { key, ...details });
    case 'TooLarge':
      return new StorageError('TooLarge', 'etcdserver: request is too large', { key });
    case 'Unavailable':
      return new StorageError('Unavailable', `etcd unavailable: ${etcdCause(e)}`, { key });
    default:
      return e;
  }
}
