// The elector a store calls for: etcd may be shared by several replicas, so its controllers that
// must run once are elected through an etcd lease; sqlite (locked to one process) and memory always lead.

import type { EtcdStorage } from '../storage/etcd.ts';
import type { Storage } from '../storage/interface.ts';
import { AlwaysLeader, type LeaderElector } from './leader-election.ts';
import type { EtcdLeaderElectionTiming } from './leader-election-etcd.ts';

export interface LeaderElectorForOptions {
  timing?: Partial<EtcdLeaderElectionTiming>;
  log?: (message: string) => void;
}

export async function leaderElectorFor(storage: Storage, o: LeaderElectorForOptions = {}): Promise<LeaderElector> {
  if (storage.kind !== 'etcd') return new AlwaysLeader({ log: o.log });
  // loaded only for etcd, like the etcd client itself (start-up time the other backends need not pay)
  const { EtcdLeaderElector } = await import('./leader-election-etcd.ts');
  return new EtcdLeaderElector(storage as EtcdStorage, o);
}
