import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WalSync } from './wal-sync.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function walFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'clusterspec-walsync-'));
  dirs.push(dir);
  const p = join(dir, 'db-wal');
  writeFileSync(p, 'frames');
  return p;
}

describe('WalSync', () => {
  it('acknowledges every commit, in commit order, and coalesces commits made during a flush', async () => {
    const sync = new WalSync(walFile());
    const acked: number[] = [];
    for (let i = 0; i < 50; i++) sync.afterCommit(() => acked.push(i), (e) => { throw e; });
    await sync.drained();
    expect(acked).toEqual([...Array(50).keys()]);
    sync.close();
  });

  it('fails the waiting commits when the file cannot be flushed', async () => {
    const sync = new WalSync(join(tmpdir(), 'clusterspec-walsync-missing', 'db-wal'));
    const failures: string[] = [];
    sync.afterCommit(() => failures.push('acked'), (e) => failures.push((e as NodeJS.ErrnoException).code ?? 'error'));
    await sync.drained();
    expect(failures).toEqual(['ENOENT']);
  });

  it('drained resolves at once when nothing is pending', async () => {
    await expect(new WalSync(walFile()).drained()).resolves.toBeUndefined();
  });
});
