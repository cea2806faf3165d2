// Durability at the server level: with sqlite, a 201 means the object is on disk; with etcd, that
// etcd committed it. A load of concurrent creates over HTTP, `kill -9` of the server in the middle
// of it, a restart on the same data directory (and etcd member): every acknowledged object must be there.

import { afterAll, describe, expect, it } from 'vitest';
import { availableBackends, ServerBackend } from './backend.ts';
import { TestServer } from './harness.ts';

const CM = '/api/v1/namespaces/default/configmaps';
/** Bounded load: at most this many creates, this many in flight. */
const TOTAL = 3000;
const CONCURRENCY = 48;
/** kill -9 once this many creates were acknowledged (well before the load ends). */
const KILL_AFTER = 400;

describe.each(availableBackends('crash', ['sqlite', 'etcd'] as const))('crash: kill -9 under a create load (%s)', (storage) => {
  const backend = new ServerBackend(storage);
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers.reverse()) await s.stop();
    await backend.close();
  });

  it('every acknowledged create survives the crash', async () => {
    const first = await backend.start();
    servers.push(first);
    const acknowledged = new Set<string>();
    const failed: string[] = [];
    let started = 0;
    let killed: Promise<void> | undefined;
    const worker = async (w: number): Promise<void> => {
      while (started < TOTAL && !killed) {
        const name = `crash-${w}-${started++}`;
        try {
          const r = await first.post(CM, { metadata: { name }, data: { payload: 'x'.repeat(512), n: name } });
          if (r.status === 201) acknowledged.add(name);
          else failed.push(`${name}: ${r.status} ${r.text.slice(0, 200)}`);
        } catch {
          // Connection reset by the kill: not acknowledged, so no claim either way.
          if (!killed) failed.push(`${name}: connection error before the kill`);
        }
        if (acknowledged.size >= KILL_AFTER && !killed) killed = first.kill();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
    await killed;
    expect(failed).toEqual([]);
    expect(first.proc.signalCode).toBe('SIGKILL');
    // The kill landed mid-load: creates were still being sent.
    expect(started).toBeLessThan(TOTAL);
    expect(acknowledged.size).toBeGreaterThanOrEqual(KILL_AFTER);

    const second = await backend.start(first.dataDir, [], true);
    servers.push(second);
    const listed = await second.get(CM);
    expect(listed.status).toBe(200);
    const present = new Set<string>((listed.json.items as { metadata: { name: string } }[]).map((i) => i.metadata.name));
    const missing = [...acknowledged].filter((n) => !present.has(n));
    expect(missing).toEqual([]);
    // Stored objects are whole: spot-check one acknowledged object read by name.
    const sample = [...acknowledged][0];
    const got = await second.get(`${CM}/${sample}`);
    expect(got.status).toBe(200);
    expect(got.json.data).toEqual({ payload: 'x'.repeat(512), n: sample });
    // Nothing unacknowledged is half-written: every present crash object reads back intact.
    for (const item of listed.json.items as { metadata: { name: string }; data: Record<string, string> }[]) {
      if (item.metadata.name.startsWith('crash-')) expect(item.data.n).toBe(item.metadata.name);
    }
    // The restarted server keeps accepting writes after the crash.
    expect((await second.post(CM, { metadata: { name: 'after-crash' } })).status).toBe(201);
  });
});
