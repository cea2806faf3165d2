import { describe, expect, it } from 'vitest';
import { WorkQueue } from './work-queue.ts';

describe('WorkQueue', () => {
  it('reconciles each queued name once, in arrival order, however often it was added while queued', async () => {
    const seen: string[] = [];
    const q = new WorkQueue({ reconcile: async (n) => void seen.push(n), log: () => undefined });
    // 'a' starts at once; its second add comes after its reconcile began, so it runs again (a newer change)
    for (const n of ['a', 'b', 'a', 'c', 'b']) q.add(n);
    await q.settled();
    expect(seen).toEqual(['a', 'b', 'a', 'c']);
  });

  it('retries a failure with a growing backoff until it succeeds, and skips ignored errors', async () => {
    const calls: Record<string, number> = {};
    const logged: string[] = [];
    const q = new WorkQueue({
      reconcile: async (n) => {
        calls[n] = (calls[n] ?? 0) + 1;
        if (n === 'flaky' && calls[n] < 3) throw new Error('not yet');
        if (n === 'stale') throw new RangeError('newer event follows');
      },
      ignore: (e) => e instanceof RangeError,
      log: (m) => logged.push(m),
      baseBackoffMs: 5,
    });
    q.add('flaky');
    q.add('stale');
    const deadline = Date.now() + 5000;
    while ((calls.flaky ?? 0) < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    await q.settled();
    expect(calls).toEqual({ flaky: 3, stale: 1 });
    expect(logged).toEqual(['flaky: not yet', 'flaky: not yet']);
  });

  it('does nothing once stopped, and drops pending retries', async () => {
    const seen: string[] = [];
    const q = new WorkQueue({ reconcile: async (n) => void seen.push(n), log: () => undefined });
    q.retryLater('later', 10);
    q.stop();
    q.add('now');
    await new Promise((r) => setTimeout(r, 40));
    expect(seen).toEqual([]);
  });
});
