// Storage errors as API errors: the one mapping of the object-storage layer.

import { describe, expect, it } from 'vitest';
import { StorageError } from '../storage/interface.ts';
import { fromStorageError } from './storage-errors.ts';

const cm = { group: '', plural: 'configmaps' };

describe('storage errors', () => {
  it.each([
    ['KeyExists', new StorageError('KeyExists', 'x'), 409, 'AlreadyExists'],
    ['Conflict', new StorageError('Conflict', 'x'), 409, 'Conflict'],
    ['NotFound', new StorageError('NotFound', 'x'), 404, 'NotFound'],
    ['Compacted', new StorageError('Compacted', 'x', { compactedRevision: 9 }), 410, 'Expired'],
    ['FutureRevision', new StorageError('FutureRevision', 'x', { revision: 3 }), 504, 'Timeout'],
  ] as const)('%s', (_n, err, code, reason) => {
    const a = fromStorageError(err, { resource: cm, name: 'c', requestedRevision: 5 });
    expect(a.code).toBe(code);
    expect(a.reason).toBe(reason);
  });
  it('words a compacted watch as upstream', () => {
    expect(fromStorageError(new StorageError('Compacted', 'x', { compactedRevision: 9 }), { resource: cm, name: '', op: 'watch', requestedRevision: 5 }).message).toBe('too old resource version: 5 (9)');
  });
});
