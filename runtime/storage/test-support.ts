// Helpers for the storage tests (not a test file itself).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Storage, StorageError, WatchEvent, WatchHandle } from './interface.ts';
import { MemoryStorage } from './memory.ts';
import { SqliteStorage, type SqliteStorageOptions } from './sqlite.ts';

export interface Backend {
  readonly name: string;
  /** A fresh store; `reopen` closes and reopens the same data where the backend persists. */
  open(): Fixture;
}

export interface Fixture {
  store: Storage;
  reopen?: () => Promise<Storage>;
  cleanup(): Promise<void>;
}

export function tempDir(tag: string): string {
  return mkdtempSync(join(tmpdir(), `clusterspec-storage-${tag}-`));
}

export function openSqlite(dir: string, extra: Partial<SqliteStorageOptions> = {}): SqliteStorage {
  return new SqliteStorage({ dataDir: dir, autoCompaction: false, ...extra });
}

export const backends: Backend[] = [
  {
    name: 'memory',
    open(): Fixture {
      const store = new MemoryStorage({ autoCompaction: false });
      return { store, cleanup: () => store.close() };
    },
  },
  sqliteBackend('sqlite', {}),
  // A one-key latest-row cache: every read and write goes through its eviction and refill paths.
  sqliteBackend('sqlite (latest-row cache of 1)', { latestCacheSize: 1 }),
];

function sqliteBackend(name: string, extra: Partial<SqliteStorageOptions>): Backend {
  return {
    name,
    open(): Fixture {
      const dir = tempDir('conf');
      const f: Fixture = {
        store: openSqlite(dir, extra),
        reopen: async () => {
          await f.store.close();
          f.store = openSqlite(dir, extra);
          return f.store;
        },
        cleanup: async () => {
          await f.store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
      return f;
    },
  };
}

export interface Collector {
  readonly events: WatchEvent[];
  error: StorageError | undefined;
  handle: WatchHandle | undefined;
  /** Resolves once at least n events arrived (rejects after timeoutMs). */
  waitFor(n: number, timeoutMs?: number): Promise<WatchEvent[]>;
}

export async function collect(store: Storage, prefix: string, fromRevision: number): Promise<Collector> {
  const c: Collector = {
    events: [],
    error: undefined,
    handle: undefined,
    async waitFor(n: number, timeoutMs = 5000): Promise<WatchEvent[]> {
      const deadline = Date.now() + timeoutMs;
      while (c.events.length < n) {
        if (c.error) throw c.error;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${n} events, have ${c.events.length}`);
        await new Promise((r) => setTimeout(r, 2));
      }
      return c.events;
    },
  };
  c.handle = await store.watch(prefix, fromRevision, (ev) => c.events.push(ev), (err) => (c.error = err));
  return c;
}

/** Lets pending setImmediate work (catch-up steps, group commits) run. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r));
}
