// Leader election: AlwaysLeader runs every controller at once; on a real etcd member, two electors
// never run one controller at the same time, a clean stop hands the lead over within a retry period,
// and a replica cut off from etcd stops leading before its lease can expire and another take over.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EtcdStorage } from '../storage/etcd.ts';
import { etcdSkipReason, startEtcdMember, type EtcdMember } from '../storage/etcd-test-member.ts';
import { AlwaysLeader, type ElectedController } from './leader-election.ts';
import { EtcdLeaderElector, checkLeaderElectionTiming, type EtcdLeaderElectionTiming } from './leader-election-etcd.ts';

interface Mark {
  who: string;
  what: 'start' | 'stop';
  at: number;
}

function recorder(who: string, marks: Mark[]): () => ElectedController {
  return () => ({
    start: () => void marks.push({ who, what: 'start', at: Date.now() }),
    stop: () => void marks.push({ who, what: 'stop', at: Date.now() }),
  });
}

/** The periods [start, stop) each elector ran the controller; overlapping ones would be two leaders at once. */
function periods(marks: Mark[]): { who: string; from: number; to: number }[] {
  const open = new Map<string, number>();
  const out: { who: string; from: number; to: number }[] = [];
  for (const m of marks) {
    if (m.what === 'start') open.set(m.who, m.at);
    else {
      out.push({ who: m.who, from: open.get(m.who) ?? 0, to: m.at });
      open.delete(m.who);
    }
  }
  for (const [who, from] of open) out.push({ who, from, to: Number.POSITIVE_INFINITY });
  return out.sort((a, b) => a.from - b.from);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('AlwaysLeader', () => {
  it('starts each controller when registered and stops it on stop(); a name registers once', async () => {
    const marks: Mark[] = [];
    const elector = new AlwaysLeader();
    await elector.run('a', recorder('a', marks));
    await elector.run('b', recorder('b', marks));
    expect(elector.isLeader('a')).toBe(true);
    expect(elector.controller('b')).toBeDefined();
    await expect(elector.run('a', recorder('a', marks))).rejects.toThrow(/already registered/);
    await elector.stop();
    expect(marks.map((m) => `${m.who} ${m.what}`).sort()).toEqual(['a start', 'a stop', 'b start', 'b stop']);
    expect(elector.isLeader('a')).toBe(false);
  });
});

describe('a controller that cannot start', () => {
  it('AlwaysLeader: run() rejects with the cause, as a start-up failure would', async () => {
    const elector = new AlwaysLeader();
    await expect(elector.run('broken', () => ({ start: () => Promise.reject(new Error('no store')), stop: () => undefined }))).rejects.toThrow('no store');
    expect(elector.isLeader('broken')).toBe(false);
    await expect(elector.run('unmakeable', () => { throw new Error('bad options'); })).rejects.toThrow('bad options');
    await elector.stop();
  });
});

describe('leader election timing', () => {
  const table: [Partial<EtcdLeaderElectionTiming>, string | undefined][] = [
    [{}, undefined],
    [{ retryPeriodMs: 0 }, 'the retry period must be positive'],
    [{ renewDeadlineMs: 2000 }, 'the renew deadline must be longer than the retry period'],
    [{ leaseDurationMs: 10_000 }, 'the lease duration must be longer than the renew deadline'],
    [{ leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 200 }, "the lease duration must be at least 2s (etcd's minimum lease TTL)"],
  ];
  it.each(table)('%j -> %s', (t, expected) => {
    expect(checkLeaderElectionTiming({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2000, ...t })).toBe(expected);
  });
});

const skip = etcdSkipReason();
if (skip) console.warn(`leader election on etcd: ${skip}`);

// Short periods so that a hand-over takes seconds: lease 2 s, renew deadline 1.2 s, retry 0.2 s.
const TIMING: EtcdLeaderElectionTiming = { leaseDurationMs: 2000, renewDeadlineMs: 1200, retryPeriodMs: 200 };

describe.skipIf(skip !== undefined)('EtcdLeaderElector on a real etcd', () => {
  let member: EtcdMember;
  const stores: EtcdStorage[] = [];
  const electors: EtcdLeaderElector[] = [];
  const open = (): { store: EtcdStorage; elector: EtcdLeaderElector } => {
    const store = new EtcdStorage({ endpoints: [member.endpoint], prefix: '/le', compactionIntervalSeconds: 0, requestTimeoutMs: 1000 });
    const elector = new EtcdLeaderElector(store, { timing: TIMING, log: () => undefined });
    stores.push(store);
    electors.push(elector);
    return { store, elector };
  };
  beforeAll(async () => {
    member = await startEtcdMember();
  });
  afterEach(async () => {
    for (const e of electors.splice(0)) await e.stop();
    for (const s of stores.splice(0)) await s.close();
  });
  afterAll(async () => {
    await member?.stop();
  });

  it('one leader at a time; a clean stop hands the lead over within a retry period or two', async () => {
    const marks: Mark[] = [];
    const a = open().elector;
    const b = open().elector;
    await a.run('work', recorder('a', marks));
    await b.run('work', recorder('b', marks));
    expect([a.isLeader('work'), b.isLeader('work')]).toEqual([true, false]);
    expect(await b.holder('work')).toBe(a.identity);
    await sleep(600); // several renewals: still a
    expect([a.isLeader('work'), b.isLeader('work')]).toEqual([true, false]);
    const stoppedAt = Date.now();
    await a.stop();
    for (let i = 0; i < 50 && !b.isLeader('work'); i++) await sleep(20);
    expect(b.isLeader('work')).toBe(true);
    expect(Date.now() - stoppedAt).toBeLessThan(2 * TIMING.retryPeriodMs + 300);
    const p = periods(marks);
    expect(p.map((x) => x.who)).toEqual(['a', 'b']);
    expect(p[0].to).toBeLessThanOrEqual(p[1].from);
  });

  it('a leader cut off from etcd stops before its lease expires; the other leads after it', async () => {
    const marks: Mark[] = [];
    const a = open();
    const b = open();
    await a.elector.run('work', recorder('a', marks));
    await b.elector.run('work', recorder('b', marks));
    expect(a.elector.isLeader('work')).toBe(true);
    // a's connection to etcd goes away (as a partition would): its keepalives fail, nothing is revoked
    const cutAt = Date.now();
    await a.store.close();
    for (let i = 0; i < 100 && !b.elector.isLeader('work'); i++) await sleep(50);
    expect(b.elector.isLeader('work')).toBe(true);
    expect(a.elector.isLeader('work')).toBe(false);
    const p = periods(marks);
    expect(p.map((x) => x.who)).toEqual(['a', 'b']);
    // a stopped within the renew deadline (plus one retry period of lateness) ...
    expect(p[0].to - cutAt).toBeLessThan(TIMING.renewDeadlineMs + TIMING.retryPeriodMs + 200);
    // ... and before b started, which had to wait for the lease to expire
    expect(p[0].to).toBeLessThan(p[1].from);
    expect(p[1].from - cutAt).toBeGreaterThanOrEqual(TIMING.renewDeadlineMs);
  });

  it('a leader whose controller fails to start tries again at the next round, with a fresh instance', async () => {
    const a = open().elector;
    let made = 0;
    await a.run('flaky', () => {
      made++;
      const n = made;
      return { start: () => (n === 1 ? Promise.reject(new Error('not yet')) : undefined), stop: () => undefined };
    });
    expect(a.isLeader('flaky')).toBe(false);
    for (let i = 0; i < 40 && !a.isLeader('flaky'); i++) await sleep(25);
    expect(a.isLeader('flaky')).toBe(true);
    expect(made).toBe(2);
  });

  it('elects each name on its own: two names may have two leaders', async () => {
    const marks: Mark[] = [];
    const a = open().elector;
    const b = open().elector;
    await a.run('one', recorder('a1', marks));
    await b.run('two', recorder('b2', marks));
    await b.run('one', recorder('b1', marks));
    await a.run('two', recorder('a2', marks));
    expect([a.isLeader('one'), b.isLeader('one'), a.isLeader('two'), b.isLeader('two')]).toEqual([true, false, false, true]);
  });
});
