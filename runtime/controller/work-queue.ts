// The work queue the server's own controllers (CRD, storage version migration) share: names are
// queued once however often they change, reconciled one at a time in arrival order, and a failed
// one is retried later with a bounded exponential backoff, as upstream's rate-limited queues do.

export interface WorkQueueOptions {
  reconcile(name: string): Promise<void>;
  /** Errors that need no retry (a newer event for the name follows); default none. */
  ignore?(e: unknown): boolean;
  log(message: string): void;
  /** First retry delay (default 1 s); it doubles per failed attempt up to maxBackoffMs (default 30 s). */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
}

export class WorkQueue {
  private readonly dirty = new Set<string>();
  private readonly retries = new Map<string, NodeJS.Timeout>();
  private readonly attempts = new Map<string, number>();
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly o: WorkQueueOptions) {}

  add(name: string): void {
    if (this.stopped || !name) return;
    this.dirty.add(name);
    this.running ??= this.drain().finally(() => (this.running = undefined));
  }

  /** Queues `name` again after `ms`, or after its backoff when not given. */
  retryLater(name: string, ms?: number): void {
    if (this.retries.has(name) || this.stopped) return;
    const attempt = this.attempts.get(name) ?? 0;
    this.attempts.set(name, attempt + 1);
    const delay = ms ?? Math.min((this.o.baseBackoffMs ?? 1000) * 2 ** attempt, this.o.maxBackoffMs ?? 30_000);
    const t = setTimeout(() => {
      this.retries.delete(name);
      this.add(name);
    }, delay);
    t.unref(); // a pending retry never keeps the process alive
    this.retries.set(name, t);
  }

  /** Resolves once nothing is queued or running (retries scheduled for later do not count), when stopped, or at the deadline. */
  async settled(deadline = Number.POSITIVE_INFINITY): Promise<void> {
    while ((this.dirty.size > 0 || this.running) && !this.stopped && Date.now() < deadline) {
      await (this.running ?? new Promise((r) => setTimeout(r, 20)));
    }
  }

  stop(): void {
    this.stopped = true;
    this.dirty.clear();
    for (const t of this.retries.values()) clearTimeout(t);
    this.retries.clear();
  }

  private async drain(): Promise<void> {
    while (this.dirty.size && !this.stopped) {
      const name = this.dirty.values().next().value as string;
      this.dirty.delete(name);
      try {
        await this.o.reconcile(name);
        this.attempts.delete(name);
      } catch (e) {
        if (this.stopped) return;
        if (this.o.ignore?.(e)) continue;
        this.o.log(`${name}: ${(e as Error).message}`);
        this.retryLater(name);
      }
    }
  }
}
