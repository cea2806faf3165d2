// Leader election among replicas sharing one etcd, on etcd's own leases (as etcd's concurrency
// package does): each process keeps one session lease alive, and leads `name` while the key
// `<prefix>/leader-election/<name>` exists attached to its lease. The key is created by a
// transaction on create revision 0, so one process holds it; it goes away with the lease, whether
// revoked (a clean stop: the next replica takes over within one retry period) or expired (a crashed
// replica: within the lease duration).
//
// Timing, with upstream's kube-controller-manager defaults: lease duration 15 s, renew deadline 10 s,
// retry period 2 s. The lease is renewed every retry period; a leader that has not had a renewal
// confirmed within the renew deadline (measured from when it SENT the last confirmed keepalive, which
// etcd received later, so etcd's expiry is later still) stops its controllers before etcd can expire
// the lease and let another replica lead. So two replicas never run the same controller at once, as
// long as their clocks advance at the same rate (the same assumption as upstream's).

import type { KVClient, LeaseClient } from 'etcd3';
import type { EtcdStorage } from '../storage/etcd.ts';
import { defaultIdentity, ElectedControllers, type ElectedController, type LeaderElector } from './leader-election.ts';

export interface EtcdLeaderElectionTiming {
  /** The session lease's TTL (etcd rounds it up to its minimum, about 2 s with default heartbeats). */
  leaseDurationMs: number;
  /** A leader whose renewal has not been confirmed for this long stops leading (below leaseDurationMs). */
  renewDeadlineMs: number;
  /** How often the lease is renewed and every election tried. */
  retryPeriodMs: number;
}

export const DEFAULT_LEADER_ELECTION_TIMING: EtcdLeaderElectionTiming = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

export interface EtcdLeaderElectorOptions {
  timing?: Partial<EtcdLeaderElectionTiming>;
  identity?: string;
  log?: (message: string) => void;
}

/** Checks the timing as upstream's leader election does: retry < renew deadline < lease duration. */
export function checkLeaderElectionTiming(t: EtcdLeaderElectionTiming): string | undefined {
  if (!(t.retryPeriodMs > 0)) return 'the retry period must be positive';
  if (!(t.renewDeadlineMs > t.retryPeriodMs)) return 'the renew deadline must be longer than the retry period';
  if (!(t.leaseDurationMs > t.renewDeadlineMs)) return 'the lease duration must be longer than the renew deadline';
  if (t.leaseDurationMs < 2000) return 'the lease duration must be at least 2s (etcd\'s minimum lease TTL)';
  return undefined;
}

export class EtcdLeaderElector implements LeaderElector {
  readonly identity: string;
  private readonly timing: EtcdLeaderElectionTiming;
  private readonly controllers: ElectedControllers;
  private readonly log: (message: string) => void;
  private readonly kv: KVClient;
  private readonly leases: LeaseClient;
  private readonly keyPrefix: string;
  /** The session lease, while etcd has confirmed it. */
  private leaseId: string | undefined;
  /** When the last keepalive (or grant) that etcd confirmed was sent. */
  private confirmedSentAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private stepDownTimer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = false;
  /** The last round failed (logged once per outage, not every retry period). */
  private failing = false;

  constructor(storage: EtcdStorage, o: EtcdLeaderElectorOptions = {}) {
    this.timing = { ...DEFAULT_LEADER_ELECTION_TIMING, ...(o.timing ?? {}) };
    const problem = checkLeaderElectionTiming(this.timing);
    if (problem) throw new Error(`leader election: ${problem}`);
    this.identity = o.identity ?? defaultIdentity();
    this.log = o.log ?? ((m) => process.stderr.write(`leader election: ${m}\n`));
    this.controllers = new ElectedControllers((m) => this.log(m));
    const c = storage.coordination();
    this.kv = c.kv;
    this.leases = c.lease;
    this.keyPrefix = `${c.prefix}/leader-election/`;
  }

  async run(name: string, make: () => ElectedController): Promise<void> {
    if (!/^[a-z0-9][a-z0-9.-]*$/.test(name)) throw new Error(`leader election: invalid name ${JSON.stringify(name)}`);
    this.controllers.register(name, make);
    if (this.stopped) return;
    // The first round at once; then every retry period.
    this.timer ??= setInterval(() => void this.tick(), this.timing.retryPeriodMs);
    this.timer.unref();
    // a round already under way may have started before this name was registered
    await this.ticking?.catch(() => undefined);
    await this.tick();
  }

  isLeader(name: string): boolean {
    return this.controllers.isLeader(name);
  }

  controller(name: string): ElectedController | undefined {
    return this.controllers.controller(name);
  }

  /** The holder of `name` as etcd has it (identity), or undefined when nobody leads. */
  async holder(name: string): Promise<string | undefined> {
    const res = await this.kv.range({ key: Buffer.from(this.keyPrefix + name) }, { deadline: Date.now() + this.timing.retryPeriodMs });
    return res.kvs[0]?.value.toString();
  }

  /** One round now (tests); resolves when it is done. */
  async tick(): Promise<void> {
    if (this.ticking) return this.ticking;
    this.ticking = this.round().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.stepDownTimer) clearTimeout(this.stepDownTimer);
    // A round under way is not waited for (with etcd down it could take seconds): it starts nothing once stopped.
    await this.controllers.stopAll();
    // Revoking deletes the keys this process holds: another replica leads at its next retry.
    const id = this.leaseId;
    this.leaseId = undefined;
    if (id) await this.leases.leaseRevoke({ ID: id }, { deadline: Date.now() + this.timing.retryPeriodMs }).catch(() => undefined);
  }

  private deadline(): { deadline: number } {
    return { deadline: Date.now() + this.timing.retryPeriodMs };
  }

  private async round(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.renew();
      if (this.stopped || !this.leaseId) return;
      for (const name of this.controllers.names()) await this.campaign(name, this.leaseId);
      if (this.failing) this.log('etcd answers again');
      this.failing = false;
    } catch (e) {
      // etcd unreachable or slow: leaders keep leading until the renew deadline (the step-down timer).
      if (!this.stopped && !this.failing) this.log(`round failed (retried every ${this.timing.retryPeriodMs} ms): ${(e as Error).message}`);
      this.failing = true;
    }
  }

  /** Grants the session lease or keeps it alive; a lease etcd no longer knows ends every lead at once. */
  private async renew(): Promise<void> {
    const sentAt = Date.now();
    if (!this.leaseId) {
      const res = await this.leases.leaseGrant({ TTL: Math.ceil(this.timing.leaseDurationMs / 1000) }, this.deadline());
      if (this.stopped) {
        await this.leases.leaseRevoke({ ID: res.ID }, this.deadline()).catch(() => undefined);
        return;
      }
      this.leaseId = res.ID;
      this.confirmed(sentAt);
      return;
    }
    const ttl = await this.keepAlive(this.leaseId);
    if (ttl <= 0) {
      this.log(`session lease ${this.leaseId} expired`);
      this.leaseId = undefined;
      await this.stepDown();
      return;
    }
    this.confirmed(sentAt);
  }

  /** One LeaseKeepAlive exchange on its own stream, bounded by the retry period; resolves to the TTL etcd granted (0: no such lease). */
  private async keepAlive(id: string): Promise<number> {
    const stream = await this.leases.leaseKeepAlive(this.deadline());
    try {
      return await new Promise<number>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error('lease keepalive: no answer within the retry period')), this.timing.retryPeriodMs);
        stream.on('data', (res: { TTL: string }) => {
          clearTimeout(t);
          resolve(Number(res.TTL));
        });
        stream.on('error', (e: Error) => {
          clearTimeout(t);
          reject(e);
        });
        stream.write({ ID: id });
      });
    } finally {
      stream.end();
    }
  }

  /** A renewal sent at `sentAt` was confirmed: leaders may lead until sentAt + renew deadline. */
  private confirmed(sentAt: number): void {
    this.confirmedSentAt = Math.max(this.confirmedSentAt, sentAt);
    if (this.stepDownTimer) clearTimeout(this.stepDownTimer);
    const at = this.confirmedSentAt + this.timing.renewDeadlineMs;
    this.stepDownTimer = setTimeout(() => {
      if (Date.now() >= this.confirmedSentAt + this.timing.renewDeadlineMs && !this.stopped) {
        this.log(`no renewal confirmed within ${this.timing.renewDeadlineMs} ms: giving up every lead`);
        void this.stepDown();
      }
    }, Math.max(0, at - Date.now()));
    this.stepDownTimer.unref();
  }

  private async stepDown(): Promise<void> {
    await this.controllers.stopAll();
  }

  /** Takes the key of `name` if free; leads while the key is attached to this process's lease. */
  private async campaign(name: string, leaseId: string): Promise<void> {
    const key = Buffer.from(this.keyPrefix + name);
    const res = await this.kv.txn(
      {
        compare: [{ key, target: 'Create', result: 'Equal', create_revision: 0 }],
        success: [{ request_put: { key, value: Buffer.from(this.identity), lease: leaseId } }],
        failure: [{ request_range: { key } }],
      },
      this.deadline(),
    );
    const holderLease = res.succeeded ? leaseId : res.responses[0]?.response_range?.kvs?.[0]?.lease;
    const mine = holderLease === leaseId && this.leaseId === leaseId && Date.now() < this.confirmedSentAt + this.timing.renewDeadlineMs;
    if (this.stopped) return;
    await this.controllers.set(name, mine);
  }
}
