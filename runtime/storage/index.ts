// Entry point: pick a backend. Everything above storage depends only on `Storage` from interface.ts.

import type { AutoCompactionOptions } from './compactor.ts';
import type { Storage } from './interface.ts';
import { MemoryStorage } from './memory.ts';
import { SqliteStorage } from './sqlite.ts';

export * from './interface.ts';
export type { AutoCompactionOptions } from './compactor.ts';
export { MemoryStorage } from './memory.ts';
export { SqliteStorage } from './sqlite.ts';

export interface OpenStorageOptions {
  readonly kind: 'memory' | 'sqlite';
  /** Required for sqlite: the directory holding the database (created if missing). */
  readonly dataDir?: string;
  /** false disables; default keeps 5 minutes of history (what a watch can resume from). */
  readonly autoCompaction?: AutoCompactionOptions | false;
  /** sqlite only: default FULL. */
  readonly synchronous?: 'FULL' | 'NORMAL';
}

export function openStorage(options: OpenStorageOptions): Storage {
  switch (options.kind) {
    case 'memory':
      return new MemoryStorage({ autoCompaction: options.autoCompaction });
    case 'sqlite':
      if (!options.dataDir) throw new Error('openStorage: sqlite needs dataDir');
      return new SqliteStorage({ dataDir: options.dataDir, autoCompaction: options.autoCompaction, synchronous: options.synchronous });
    default: {
      const never: never = options.kind;
      throw new Error(`openStorage: unknown kind ${String(never)}`);
    }
  }
}
