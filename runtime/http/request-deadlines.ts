// Upstream's request timeout (--request-timeout, 60 s): an ordinary request still unanswered by its
// deadline gets 504. One sweeping interval for all requests instead of a timer and a 'close'
// listener per request, which are a measurable share of a GET.

export class RequestDeadlines<T extends object> {
  // Insertion order is deadline order (one timeout for all), so a sweep stops at the first live one.
  private readonly pending = new Map<T, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly timeoutMs: number,
    /** Called once for an item whose deadline passed before `done`. */
    private readonly expire: (item: T) => void,
    private readonly sweepEveryMs = Math.min(1000, timeoutMs),
    private readonly now: () => number = Date.now,
  ) {}

  track(item: T): void {
    this.pending.set(item, this.now() + this.timeoutMs);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.sweep(), this.sweepEveryMs);
      this.timer.unref(); // never keeps the process alive
    }
  }

  done(item: T): void {
    this.pending.delete(item);
  }

  /** Expires every item whose deadline passed; stops the interval when nothing is pending. */
  sweep(): void {
    const t = this.now();
    for (const [item, deadline] of this.pending) {
      if (deadline > t) break;
      this.pending.delete(item);
      this.expire(item);
    }
    if (this.pending.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  get size(): number {
    return this.pending.size;
  }
}
