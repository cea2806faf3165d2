// Entry point: pick a backend. Everything above storage depends only on `Storage` from interface.ts.

import type { AutoCompactionOptions } from './compactor.ts';
import type { Storage } from './interface.ts';
import { MemoryStorage } from './memory.ts';
import { SqliteStorage } from './sqlite.ts';

export * from './interface.ts';
export type { AutoCompactionOptions } from './compactor.ts';
export { MemoryStorage } from './memory.ts';
export { SqliteStorage } from './sqlite.ts';
export { DEFAULT_MAX_REQUEST_BYTES } from './request-size.ts';

export interface OpenStorageOptions {
  readonly kind: 'memory' | 'sqlite';
  /** Required for sqlite: the directory holding the database (created if missing). */
  readonly dataDir?: string;
  /** false disables; default keeps 5 minutes of history (what a watch can resume from). */
  readonly autoCompaction?: AutoCompactionOptions | false;
  /** sqlite only: default FULL. */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /** The largest key plus value a write takes, as etcd's --max-request-bytes (default 1.5 MiB; 0: no bound). */
  readonly maxRequestBytes?: number;
}

export function openStorage(options: OpenStorageOptions): Storage {
  switch (options.kind) {
    case 'memory':
      return new MemoryStorage({ autoCompaction: options.autoCompaction, maxRequestBytes: options.maxRequestBytes });
    case 'sqlite':
      if (!options.dataDir) throw new Error('openStorage: sqlite needs dataDir');
      return new SqliteStorage({ dataDir: options.dataDir, autoCompaction: options.autoCompaction, synchronous: options.synchronous, maxRequestBytes: options.maxRequestBytes });
    default: {
      const never: never = options.kind;
      throw new Error(`openStorage: unknown kind ${String(never)}`);
    }
  }
}
