// A controller's watch ended (storage closed, its revision compacted away, or etcd gone): open it
// again after a short pause, unless the controller stopped. A reopen that fails (etcd still
// unreachable) is tried again with a doubling pause, up to maxDelayMs, until it succeeds or the
// controller stops. The reopened watch's initial events bring the state back.

export interface RestartWatchOptions {
  stopped: () => boolean;
  reopen: () => Promise<void>;
  log: (message: string) => void;
  /** The first pause (default 500 ms). */
  delayMs?: number;
  /** The longest pause between failed reopens (default 5 s). */
  maxDelayMs?: number;
}

export function restartWatchLater(o: RestartWatchOptions): void {
  const first = o.delayMs ?? 500;
  const max = Math.max(first, o.maxDelayMs ?? 5000);
  let failures = 0;
  const attempt = (delay: number): void => {
    if (o.stopped()) return;
    setTimeout(() => {
      if (o.stopped()) return;
      o.reopen().catch((e: unknown) => {
        // said once per outage, not at every retry
        if (failures++ === 0) o.log(`watch restart: ${(e as Error).message} (retrying every ${max / 1000} s at most)`);
        attempt(Math.min(delay * 2, max));
      });
    }, delay).unref(); // never keeps the process alive
  };
  attempt(first);
}
