// Automatic compaction, shared by the backends: keep the last N revisions and/or the revisions of the
// last T seconds (etcd's "revision" and "periodic" modes). When both are given, the more generous one
// wins (the lower compaction target).

import type { Revision } from './interface.ts';

export interface AutoCompactionOptions {
  /** Keep at least this many of the most recent revisions. */
  readonly keepRevisions?: number;
  /** Keep at least the revisions written in the last this-many seconds. Default 300 when neither is given. */
  readonly keepSeconds?: number;
  /** How often to check, in seconds. Default: keepSeconds / 10 clamped to [1, 60], or 30. */
  readonly intervalSeconds?: number;
}

export interface CompactionTarget {
  currentRevisionSync(): Revision;
  compactedRevisionSync(): Revision;
  compact(revision: Revision): Promise<void>;
}

export const DEFAULT_AUTO_COMPACTION: AutoCompactionOptions = { keepSeconds: 300 };

export class AutoCompactor {
  private readonly samples: { t: number; rev: Revision }[] = [];
  private readonly timer: NodeJS.Timeout;
  private running = false;

  constructor(
    private readonly target: CompactionTarget,
    private readonly options: AutoCompactionOptions,
    now: number = Date.now(),
  ) {
    const every =
      options.intervalSeconds ?? (options.keepSeconds !== undefined ? Math.min(60, Math.max(1, options.keepSeconds / 10)) : 30);
    this.samples.push({ t: now, rev: target.currentRevisionSync() });
    this.timer = setInterval(() => void this.tick(), every * 1000);
    this.timer.unref();
  }

  /** The revision to compact to now, or undefined when nothing is due. */
  targetRevision(now: number): Revision | undefined {
    const current = this.target.currentRevisionSync();
    const candidates: Revision[] = [];
    if (this.options.keepRevisions !== undefined) candidates.push(current - this.options.keepRevisions);
    if (this.options.keepSeconds !== undefined) {
      const cutoff = now - this.options.keepSeconds * 1000;
      let rev: Revision | undefined;
      for (const s of this.samples) if (s.t <= cutoff) rev = s.rev;
      candidates.push(rev ?? 0);
    }
    if (candidates.length === 0) return undefined;
    const t = Math.min(...candidates);
    return t > this.target.compactedRevisionSync() ? t : undefined;
  }

  async tick(now: number = Date.now()): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      this.samples.push({ t: now, rev: this.target.currentRevisionSync() });
      const rev = this.targetRevision(now);
      if (this.options.keepSeconds !== undefined) {
        // Drop samples older than the newest one at or before the cutoff.
        const cutoff = now - this.options.keepSeconds * 1000;
        while (this.samples.length > 1 && this.samples[1].t <= cutoff) this.samples.shift();
      } else {
        this.samples.splice(0, this.samples.length - 1);
      }
      if (rev !== undefined && rev > 0) await this.target.compact(rev);
    } catch {
      // Closed or raced with a manual compaction: try again next tick.
    } finally {
      this.running = false;
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
