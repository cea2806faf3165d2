// `npm run bench:hostile`: the server's event-loop delay under normal traffic alone, and under the
// same traffic with the hostile-input cases of test/fixtures/hostile/ looping beside it, in one run
// (rounds interleaved: normal, hostile, normal, ...). Target (issue 16): the hostile run's p99 no
// more than twice the normal run's.
//
// The delay is measured inside the server process: bench/event-loop-probe.mjs is preloaded into it
// through NODE_OPTIONS and prints perf_hooks.monitorEventLoopDelay's histogram on SIGUSR2. Normal
// traffic: `--concurrency` clients, each looping GET of a ConfigMap by name (3 of 4 requests) and a
// ConfigMap create (1 of 4). Hostile: every case on every one of its write paths, one after another
// (each with its setup object), bodies rendered once before measuring. Also printed: the normal
// requests' latency and the slowest /healthz probe (every 20 ms, from a worker thread).
//
//   npm run bench:hostile -- [--seconds 10] [--rounds 2] [--concurrency 4] [--cases name,name]
//                            [--storage sqlite|memory]

import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { HealthProbe, type ProbeWindow } from '../test/e2e/health-probe.ts';
import { createTargets, expectationFor, loadCases, loadTargets, prepareWrite, problemsOf, secretMarker, sendWrite, type PreparedWrite } from '../test/e2e/hostile-cases.ts';
import { ROOT, TestServer } from '../test/e2e/harness.ts';
import { arg } from './cli-options.ts';

const SECONDS = Number(arg('seconds', '10'));
const ROUNDS = Number(arg('rounds', '2'));
const CONCURRENCY = Number(arg('concurrency', '4'));
const STORAGE = arg('storage', 'sqlite') as 'sqlite' | 'memory';
const ONLY = arg('cases', '');
const NS = 'bench-normal';

interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
  count: number;
}

interface Phase {
  delay: LoopDelay;
  requests: number;
  latencyP99: number;
  probe: ProbeWindow;
  hostileWrites: number;
  hostileStatuses: Map<number, number>;
}

const percentile = (xs: number[], p: number): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))];
};
const median = (xs: number[]): number => percentile(xs, 50);
const fmt = (n: number, d = 1): string => n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });

/** Asks the server for its event-loop delay histogram since the last ask (and starts a new one). */
function loopDelay(s: TestServer): Promise<LoopDelay> {
  return new Promise((res, rej) => {
    let buf = '';
    // The server answers once its loop runs again: after a stall that can take long.
    const timer = setTimeout(() => done(new Error('no event-loop-delay line from the server in 120 s')), 120_000);
    const onData = (d: Buffer): void => {
      buf += d.toString();
      const m = /event-loop-delay (\{.*\})\n/.exec(buf);
      if (m) done(undefined, JSON.parse(m[1]) as LoopDelay);
    };
    const done = (e?: Error, v?: LoopDelay): void => {
      clearTimeout(timer);
      s.proc.stdout?.off('data', onData);
      if (e) rej(e);
      else res(v as LoopDelay);
    };
    s.proc.stdout?.on('data', onData);
    s.proc.kill('SIGUSR2');
  });
}

/** Normal traffic until `until`: GETs by name and creates; the latency of each request. */
async function normalTraffic(s: TestServer, until: number): Promise<number[]> {
  const latencies: number[] = [];
  const worker = async (w: number): Promise<void> => {
    for (let i = 0; performance.now() < until; i++) {
      const t0 = performance.now();
      const create = i % 4 === 3;
      const r = create
        ? await s.post(`/api/v1/namespaces/${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: `n${w}-` }, data: { k: 'v' } })
        : await s.get(`/api/v1/namespaces/${NS}/configmaps/target`);
      latencies.push(performance.now() - t0);
      if (r.status !== (create ? 201 : 200)) throw new Error(`normal traffic: ${r.status} ${r.text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
  return latencies;
}

/** Answers that the suite would refuse (status, Status body, secret), by `case / path`: the first problem of each. */
const unexpected = new Map<string, string>();

/** Numbers the hostile writes' objects across rounds, so that no name is written twice. */
let writesSent = 0;

/** Every prepared write in turn, over and over, until `until`; the statuses answered. */
async function hostileLoop(s: TestServer, writes: PreparedWrite[], until: number, statuses: Map<number, number>, marker: string): Promise<number> {
  let sent = 0;
  for (let seq = 0; performance.now() < until; seq++) {
    const w = writes[seq % writes.length];
    const result = await sendWrite(s, w, `${w.c.name}-${w.path}-${writesSent++}`);
    if (result.setup && result.setup.status !== 201) unexpected.set(`${w.c.name} / ${w.path}`, `setup answered ${result.setup.status}`);
    for (const a of result.answers) {
      statuses.set(a.response.status, (statuses.get(a.response.status) ?? 0) + 1);
      // Response time is not the bench's to judge: beside the load it says little.
      const problems = problemsOf(a.response, a.ms, { ...expectationFor(w.c, w.path), maxResponseMs: undefined }, marker);
      if (problems.length) unexpected.set(`${w.c.name} / ${w.path}`, problems[0].slice(0, 160));
    }
    sent += result.answers.length;
  }
  return sent;
}

async function phase(s: TestServer, probe: HealthProbe, hostile: PreparedWrite[] | undefined, marker: string): Promise<Phase> {
  await loopDelay(s); // starts a fresh histogram
  probe.start();
  const until = performance.now() + SECONDS * 1000;
  const statuses = new Map<number, number>();
  const [latencies, hostileWrites] = await Promise.all([normalTraffic(s, until), hostile ? hostileLoop(s, hostile, until, statuses, marker) : Promise.resolve(0)]);
  const probeWindow = await probe.stop();
  const delay = await loopDelay(s);
  return { delay, requests: latencies.length, latencyP99: percentile(latencies, 99), probe: probeWindow, hostileWrites, hostileStatuses: statuses };
}

function line(label: string, p: Phase): string {
  const statuses = [...p.hostileStatuses].sort(([a], [b]) => a - b).map(([k, v]) => `${k}×${v}`).join(' ');
  return (
    `  ${label.padEnd(8)} event-loop delay p50 ${fmt(p.delay.p50).padStart(7)} ms  p99 ${fmt(p.delay.p99).padStart(7)} ms  max ${fmt(p.delay.max).padStart(8)} ms (${p.delay.count} samples)` +
    `   normal requests ${p.requests} (p99 ${fmt(p.latencyP99)} ms)   slowest /healthz ${fmt(p.probe.max)} ms` +
    (p.hostileWrites ? `   hostile writes ${p.hostileWrites} (${statuses})` : '')
  );
}

async function main(): Promise<void> {
  const probeModule = pathToFileURL(resolve(ROOT, 'bench', 'event-loop-probe.mjs')).href;
  process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --import=${probeModule}`.trim();
  const targets = loadTargets();
  const cases = loadCases().filter((c) => !ONLY || ONLY.split(',').includes(c.name));
  if (cases.length === 0) throw new Error(`no case named ${ONLY}`);
  const marker = secretMarker();
  // Interleaved by case (every case's first path, then every case's second, ...): a short run still meets every case.
  const perCase = cases.map((c) => c.paths.map((p) => prepareWrite(c, p, targets, marker)));
  const writes = Array.from({ length: Math.max(...perCase.map((w) => w.length)) }, (_, i) => perCase.flatMap((w) => (i < w.length ? [w[i]] : []))).flat();
  const s = await TestServer.start(STORAGE);
  const probe = new HealthProbe(s);
  try {
    await createTargets(s, targets);
    if ((await s.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status !== 201) throw new Error('namespace');
    if ((await s.post(`/api/v1/namespaces/${NS}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target' }, data: { k: 'v' } })).status !== 201) throw new Error('target');
    process.stdout.write(
      `bench:hostile — node ${process.version}, ${STORAGE} storage, HTTPS on loopback; ${CONCURRENCY} normal clients (3 GETs : 1 create); ` +
        `${writes.length} hostile writes (${cases.length} cases × their paths) looping beside them; ${ROUNDS} round(s) of ${SECONDS} s per side, interleaved\n` +
        `event-loop delay sampled inside the server (monitorEventLoopDelay, resolution ${process.env.CLUSTERSPEC_ELD_RESOLUTION_MS ?? 10} ms; figures: delay beyond that interval)\n\n`,
    );
    await normalTraffic(s, performance.now() + 2000); // warm-up (JIT, connections)
    const normal: Phase[] = [];
    const hostile: Phase[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      normal.push(await phase(s, probe, undefined, marker));
      process.stdout.write(line(`normal ${r + 1}`, normal[r]) + '\n');
      hostile.push(await phase(s, probe, writes, marker));
      process.stdout.write(line(`hostile ${r + 1}`, hostile[r]) + '\n');
    }
    const n99 = median(normal.map((p) => p.delay.p99));
    const h99 = median(hostile.map((p) => p.delay.p99));
    const nMax = Math.max(...normal.map((p) => p.delay.max));
    const hMax = Math.max(...hostile.map((p) => p.delay.max));
    const ratio = h99 / n99;
    process.stdout.write(
      `\nsummary (median p99 over rounds, max over rounds)\n` +
        `  normal alone       event-loop delay p99 ${fmt(n99)} ms, max ${fmt(nMax)} ms\n` +
        `  normal + hostile   event-loop delay p99 ${fmt(h99)} ms, max ${fmt(hMax)} ms\n` +
        `  ratio hostile/normal p99 ${ratio.toFixed(2)} (target <= 2.00: ${ratio <= 2 ? 'meets target' : 'ABOVE TARGET'})\n`,
    );
    process.stdout.write(`\nhostile answers the suite would refuse: ${unexpected.size}${[...unexpected].map(([k, v]) => `\n  ${k}: ${v}`).join('')}\n`);
  } finally {
    await probe.close();
    await s.stop();
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench failed: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);
