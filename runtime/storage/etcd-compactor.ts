// The server's own periodic etcd compaction, as upstream's `--etcd-compaction-interval`: every
// interval, compact to the revision seen one interval earlier, so a watch or a continued LIST has at
// least one interval of history. Replicas sharing one etcd compact once per interval between them:
// `compact_rev_key` (upstream's key, outside any prefix: compaction is global to etcd) is claimed by a
// transaction on its version, and only the replica whose claim succeeds compacts. Its value is the
// compaction point, which etcd itself does not report (EtcdStorage.compactedRevision reads it).

import type { KVClient } from 'etcd3';

export const COMPACT_REV_KEY = 'compact_rev_key';

export class EtcdCompactor {
  /** compact_rev_key's version as last seen: the logical clock the replicas agree on. */
  private version = 0;
  /** The store's revision at the last tick: what the next successful claim compacts to. */
  private lastRevision = 0;
  private running = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly kv: KVClient,
    intervalMs: number,
    private readonly onError: (e: unknown) => void = () => undefined,
  ) {
    this.timer = setInterval(() => void this.tick(), intervalMs);
    this.timer.unref();
  }

  /** One round; exported for tests. Resolves to the revision compacted to, or 0 when none this round. */
  async tick(): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    try {
      const key = Buffer.from(COMPACT_REV_KEY);
      const res = await this.kv.txn({
        compare: [{ key, target: 'Version', result: 'Equal', version: this.version }],
        success: [{ request_put: { key, value: Buffer.from(String(this.lastRevision)) } }],
        failure: [{ request_range: { key } }],
      });
      const current = Number(res.header.revision);
      if (!res.succeeded) {
        // another replica (or an explicit compact) claimed this round: adopt its clock
        this.version = Number(res.responses[0]?.response_range?.kvs?.[0]?.version ?? 0);
        this.lastRevision = current;
        return 0;
      }
      this.version += 1;
      const target = this.lastRevision;
      this.lastRevision = current;
      if (target <= 0) return 0;
      try {
        await this.kv.compact({ revision: target });
      } catch (e) {
        // already compacted further (an explicit compact): nothing to do
        if (!/required revision has been compacted/.test((e as Error).message)) throw e;
      }
      return target;
    } catch (e) {
      this.onError(e);
      return 0;
    } finally {
      this.running = false;
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
