// The storage backends an e2e suite runs against, as `describe.each` rows: `memory`, `sqlite`, and
// `etcd` on a throwaway member (runtime/storage/etcd-test-member.ts). Where etcd is absent the etcd
// rows are left out with a printed message; under CI that is a failure (etcdSkipReason throws).

import { etcdSkipReason, startEtcdMember, type EtcdMember } from '../../runtime/storage/etcd-test-member.ts';
import { TestServer } from './harness.ts';

export type BackendName = 'memory' | 'sqlite' | 'etcd';

/** `names` minus etcd where etcd is absent (said once on stderr, naming the suite). */
export function availableBackends<T extends BackendName>(suite: string, names: readonly T[]): T[] {
  if (!names.includes('etcd' as T)) return [...names];
  const skip = etcdSkipReason();
  if (skip === undefined) return [...names];
  console.warn(`${suite}: ${skip}`);
  return names.filter((n) => n !== 'etcd');
}

/**
 * Starts server processes on one backend. For etcd every server started through one ServerBackend
 * shares its member and key prefix, so a server started again (on the same data directory, for
 * its token and certificate) finds the data, as a sqlite server does in its data directory.
 */
export class ServerBackend {
  private member: EtcdMember | undefined;
  private memberStarting: Promise<EtcdMember> | undefined;

  constructor(readonly name: BackendName) {}

  /** The etcd member (started on first use); undefined for the other backends. */
  async etcd(): Promise<EtcdMember | undefined> {
    if (this.name !== 'etcd') return undefined;
    this.memberStarting ??= startEtcdMember().then((m) => (this.member = m));
    return this.memberStarting;
  }

  /** As TestServer.start, on this backend. */
  async start(dataDir?: string, extraArgs: string[] = [], ownsDir = dataDir === undefined): Promise<TestServer> {
    if (this.name !== 'etcd') return TestServer.start(this.name, dataDir, extraArgs, ownsDir);
    const member = (await this.etcd()) as EtcdMember;
    return TestServer.start('memory', dataDir, ['--storage', 'etcd', '--etcd-servers', member.endpoint, '--etcd-prefix', '/e2e', ...extraArgs], ownsDir);
  }

  /** Stops the etcd member, if one was started. */
  async close(): Promise<void> {
    await this.member?.stop();
  }
}
