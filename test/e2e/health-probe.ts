// A concurrent /healthz probe against a TestServer, run in a worker thread (health-probe-worker.mjs):
// `start()` before a request under test, `stop()` after it gives the slowest probe in between.

import { Worker } from 'node:worker_threads';
import type { TestServer } from './harness.ts';

export interface ProbeWindow {
  /** The slowest probe, ms (the one in flight at stop() included). */
  max: number;
  count: number;
  /** Probes answered other than 200, or not at all within 30 s. */
  failures: number;
}

export class HealthProbe {
  private readonly worker: Worker;

  constructor(s: TestServer, intervalMs = 20) {
    this.worker = new Worker(new URL('./health-probe-worker.mjs', import.meta.url), {
      workerData: { url: s.url, token: s.token, ca: s.ca.toString('utf8'), intervalMs },
    });
    this.worker.unref();
  }

  start(): void {
    this.worker.postMessage('start');
  }

  stop(): Promise<ProbeWindow> {
    return new Promise((resolve) => {
      this.worker.once('message', (m: ProbeWindow) => resolve(m));
      this.worker.postMessage('stop');
    });
  }

  async close(): Promise<void> {
    this.worker.postMessage('close');
    await this.worker.terminate();
  }
}
