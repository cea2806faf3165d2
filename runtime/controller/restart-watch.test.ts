// restartWatchLater: a failed reopen is tried again (backing off) until it succeeds or the controller stops; one log line per outage.

import { describe, expect, it } from 'vitest';
import { restartWatchLater } from './restart-watch.ts';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('restartWatchLater', () => {
  const table: { name: string; failFirst: number; stopAtCall?: number; expectCalls: number; expectLogs: number }[] = [
    { name: 'reopens once when the first reopen works', failFirst: 0, expectCalls: 1, expectLogs: 0 },
    { name: 'keeps trying while reopening fails, then stops at the first success', failFirst: 3, expectCalls: 4, expectLogs: 1 },
    { name: 'gives up once the controller stopped', failFirst: 100, stopAtCall: 2, expectCalls: 2, expectLogs: 1 },
  ];
  it.each(table)('$name', async ({ failFirst, stopAtCall, expectCalls, expectLogs }) => {
    let calls = 0;
    let stopped = false;
    const logs: string[] = [];
    restartWatchLater({
      stopped: () => stopped,
      reopen: async () => {
        calls++;
        if (calls === stopAtCall) stopped = true; // the controller stops while a reopen is failing
        if (calls <= failFirst) throw new Error('etcd unavailable');
      },
      log: (m) => logs.push(m),
      delayMs: 10,
      maxDelayMs: 40,
    });
    await sleep(300);
    expect(calls).toBe(expectCalls);
    expect(logs.length).toBe(expectLogs);
  });
});
