// Durability without blocking the event loop. SQLite runs with synchronous=NORMAL in WAL mode
// (a commit writes its frames to the -wal file but does not fsync), and this flushes the -wal
// file with an fsync on libuv's thread pool before a batch is acknowledged: after the ack the
// frames are on disk, as synchronous=FULL would leave them, while the event loop keeps serving
// requests and the next batch commits behind the running fsync. One fsync is in flight at a
// time; every batch committed before it starts is covered by it, so batches acknowledge in order.
// The writer holds new commits while a flush runs (see `busy`), so that everything which arrived
// meanwhile goes into one transaction: fewer, larger transactions write fewer WAL pages.

import { close, fsync, open } from 'node:fs';

interface Waiter {
  done: () => void;
  fail: (e: Error) => void;
}

export class WalSync {
  private fd: number | undefined;
  private waiting: Waiter[] = [];
  private inFlight = false;
  private idle: (() => void)[] = [];

  /**
   * `walPath`: the database's `-wal` file, which exists once a write transaction committed.
   * `afterFlush`: called when a flush finished and its commits were acknowledged.
   */
  constructor(
    private readonly walPath: string,
    private readonly afterFlush: () => void = () => undefined,
  ) {}

  /** A flush is running: a writer can hold its next commit until it ends (bigger batches, same latency). */
  get busy(): boolean {
    return this.inFlight;
  }

  /** Call after a transaction committed: `done` runs once its frames are on disk, `fail` if the flush fails. */
  afterCommit(done: () => void, fail: (e: Error) => void): void {
    this.waiting.push({ done, fail });
    if (!this.inFlight) this.start();
  }

  /** Resolves when no flush is running or waiting (before closing the database). */
  drained(): Promise<void> {
    if (!this.inFlight && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Closes the file descriptor (after drained()). */
  close(): void {
    if (this.fd !== undefined) close(this.fd, () => undefined);
    this.fd = undefined;
  }

  private start(): void {
    const batch = this.waiting;
    this.waiting = [];
    this.inFlight = true;
    const finish = (err: Error | null): void => {
      this.inFlight = false;
      for (const w of batch) {
        if (err) w.fail(err);
        else w.done();
      }
      if (this.waiting.length > 0) this.start();
      else {
        this.afterFlush();
        if (!this.inFlight) for (const r of this.idle.splice(0)) r();
      }
    };
    if (this.fd !== undefined) {
      fsync(this.fd, finish);
      return;
    }
    open(this.walPath, 'r', (err, fd) => {
      if (err) return finish(err);
      this.fd = fd;
      fsync(fd, finish);
    });
  }
}
