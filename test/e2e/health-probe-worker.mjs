// A worker thread that probes GET /healthz (with the token) every `intervalMs` while started, on
// its own keep-alive connection and event loop, so that work in the test's thread (building or
// parsing large bodies) cannot delay a probe. Plain JavaScript: a worker does not get tsx's loader.
//
// workerData: { url, token, ca (PEM string), intervalMs }. Messages in: 'start', 'stop'.
// On 'stop' (after the probe in flight has finished): { max, count, failures } in ms.

import { Agent, request } from 'node:https';
import { parentPort, workerData } from 'node:worker_threads';

const { url, token, ca, intervalMs } = workerData;
const agent = new Agent({ ca, keepAlive: true, maxSockets: 1 });
const target = new URL('/healthz', url);

let running = false;
let loop = Promise.resolve();
let stats = { max: 0, count: 0, failures: 0 };

function probeOnce() {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const req = request(target, { headers: { Authorization: `Bearer ${token}` }, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ ms: performance.now() - t0, ok: res.statusCode === 200 }));
    });
    req.setTimeout(30_000, () => req.destroy(new Error('probe timeout')));
    req.on('error', () => resolve({ ms: performance.now() - t0, ok: false }));
    req.end();
  });
}

async function run() {
  while (running) {
    const t0 = performance.now();
    const r = await probeOnce();
    stats.count++;
    if (!r.ok) stats.failures++;
    if (r.ms > stats.max) stats.max = r.ms;
    const wait = intervalMs - (performance.now() - t0);
    if (running && wait > 0) await new Promise((res) => setTimeout(res, wait));
  }
}

parentPort.on('message', (m) => {
  if (m === 'start') {
    stats = { max: 0, count: 0, failures: 0 };
    running = true;
    loop = run();
  } else if (m === 'stop') {
    running = false;
    void loop.then(() => parentPort.postMessage(stats));
  } else if (m === 'close') {
    agent.destroy();
    parentPort.close();
  }
});
