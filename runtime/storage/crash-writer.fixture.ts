// Child process for the crash test: writes in a loop (several writes in flight, so group commit is
// exercised) and prints "<revision> <key>" for each acknowledged write. The test kills it with SIGKILL.
// Usage: node --import tsx runtime/storage/crash-writer.fixture.ts <dataDir> [inFlight]

import { SqliteStorage } from './sqlite.ts';

const dir = process.argv[2];
const inFlight = Number(process.argv[3] ?? '8');
if (!dir) throw new Error('usage: crash-writer.fixture.ts <dataDir> [inFlight]');
const store = new SqliteStorage({ dataDir: dir, autoCompaction: false });
let n = 0;

async function writer(w: number): Promise<void> {
  for (;;) {
    const key = `/core/configmaps/crash/w${w}-${n++}`;
    const rev = await store.create(key, JSON.stringify({ w, n, pad: 'x'.repeat(200) }));
    process.stdout.write(`${rev} ${key}\n`);
  }
}

process.stdout.write('ready\n');
await Promise.all(Array.from({ length: inFlight }, (_, w) => writer(w)));
