// Checkpoints of the SQLite WAL on a worker thread. A checkpoint copies the pages committed to the
// `-wal` file into the database file and fsyncs it; on the writer's connection it runs inside the
// commit that crosses the threshold, so every request waits behind it (a 10,000-page checkpoint held
// a commit for ~40 ms). Here a second connection on its own thread runs PASSIVE checkpoints, which
// never block the writer; the writer keeps a high auto-checkpoint only as a backstop.
//
// One checkpoint runs at a time: `committed(n)` after each commit starts one when none is running
// and `minWrites` writes were committed since the last one started; a failure is reported once to
// `onError` and the next one tries again.

import { Worker } from 'node:worker_threads';

interface CheckpointResult {
  ok: boolean;
  error?: string;
}

export class WalCheckpointer {
  private readonly worker: Worker;
  private running = false;
  private pending = 0;
  private stopped = false;
  private readonly exited: Promise<void>;
  private reported = false;

  constructor(
    dbPath: string,
    /** Writes between checkpoints. */
    private readonly minWrites = 2000,
    private readonly onError: (message: string) => void = (m) => process.stderr.write(`sqlite: WAL checkpoint failed: ${m}\n`),
  ) {
    this.worker = new Worker(new URL('./wal-checkpoint-worker.js', import.meta.url), { workerData: { path: dbPath } });
    this.worker.unref(); // an idle checkpointer never keeps the process alive
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.on('message', (r: CheckpointResult) => {
      this.running = false;
      if (!r.ok && !this.reported) {
        this.reported = true;
        this.onError(r.error ?? 'unknown error');
      }
      if (r.ok) this.reported = false;
      if (this.pending >= this.minWrites) this.start();
    });
    this.worker.on('error', (e) => {
      this.stopped = true;
      this.onError(e.message);
    });
  }

  /** Call after a commit of `writes` writes: starts a checkpoint once enough were written. */
  committed(writes: number): void {
    this.pending += writes;
    if (!this.running && !this.stopped && this.pending >= this.minWrites) this.start();
  }

  /** Stops the thread (after the running checkpoint) and closes its connection. */
  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.worker.postMessage('stop');
    }
    this.worker.ref(); // keeps the process alive until the thread has closed its connection
    await this.exited;
  }

  private start(): void {
    if (this.stopped) return;
    this.running = true;
    this.pending = 0;
    this.worker.postMessage('checkpoint');
  }
}
