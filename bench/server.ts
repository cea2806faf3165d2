// `npm run bench:server`: the API server (sqlite, plain HTTP via --insecure-http) against a bare
// node:http server returning bodies of the same size, side by side in one run, on this machine.
//
//   GET by name         requests/s, ours / bare                     (target >= 0.7)
//   durable create      requests/s, ours / bare POST parse+stringify (target >= 0.5), beside two
//                       references: the bare POST plus SqliteStorage.create (durable storage without
//                       the API) and ours on --storage memory (the API without durability)
//   LIST limit=500      page time out of 10,000 and out of 100,000 objects; the ratio (target ~1)
//   1,000 watchers      time from a write until the last watcher has the event (target <= 50 ms)
//
// Separate processes: this orchestrator (seeding, sequential LIST timing, the watchers), each server
// under test, and the load generator (wrk when installed, else autocannon's CLI; a child process per
// run), so that no two of them share an event loop. Runs are interleaved (bare, ours, bare,
// ours, ...) after one unrecorded warm-up round per side, and medians are printed, because the
// machines are shared and noisy.
//
// Every round also reads the server's CPU time from /proc/<pid>/stat (Linux): CPU per request is
// steadier than requests/s on a shared machine, and shows where a ratio comes from.
//
// `--before DIR`: also runs the server of another checkout (a git worktree of the commit before a
// change, with its node_modules) as the side `before`, on a copy of the same seeded data, in the GET
// and create rounds: a change's effect in one run (`ours / before`).
//
// Internal mode: `tsx bench/server.ts --bare <bodies.json> [<storage dir>]` is the baseline server.

import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { serverStackArgs } from '../runtime/stack-size.ts';
import { processCpuUs } from '../test/e2e/process-cpu.ts';
import { arg } from './cli-options.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const AUTOCANNON = join(ROOT, 'node_modules', 'autocannon', 'autocannon.js');
/** wrk (C, Debian package) when installed: it needs far less CPU than autocannon on a 2-core machine. BENCH_LOADGEN=autocannon forces autocannon. */
const WRK = process.env.BENCH_LOADGEN === 'autocannon' ? undefined : ['/usr/bin/wrk', '/usr/local/bin/wrk'].find((p) => existsSync(p));
let scriptDir = tmpdir();

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const GET_CONNECTIONS = 10;
const POST_CONNECTIONS = 100;
const PAGE = 500;
const SMALL = 10_000;
const LARGE = 100_000;
const WATCHERS = 1000;
const WATCH_WRITES = 9;
const LIST_SAMPLES = 15;

// ------------------------------------------------------------------ the bare baseline server

/**
 * GET /<name>: a fixed body. POST /post: parse the body, stringify it, 201. With a storage directory
 * (its own process, so that the baseline carries no storage threads), POST /durable: the same plus
 * SqliteStorage.create of the object under a generated name, answered once it is on disk: the
 * storage backend's share of a durable create, without the API server. Port on stdout.
 */
async function bareServer(bodiesFile: string, storageDir: string | undefined): Promise<void> {
  const bodies = new Map(Object.entries(JSON.parse(readFileSync(bodiesFile, 'utf8')) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v)]));
  const { SqliteStorage } = await import('../runtime/storage/sqlite.ts');
  const { isStorageError } = await import('../runtime/storage/interface.ts');
  const { generateName } = await import('../runtime/api/object.ts');
  const storage = storageDir === undefined ? undefined : new SqliteStorage({ dataDir: storageDir });
  const reply = (res: ServerResponse, status: number, out: string): void => {
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(out) });
    res.end(out);
  };
  const server = createServer((req, res) => {
    if (req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (req.url !== '/durable' || !storage) return reply(res, 201, JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8'))) + '\n');
        const obj = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { metadata: Record<string, string> };
        // A generated name can collide, as in the registry: try another one.
        const store = (attempt: number): void => {
          obj.metadata.name = generateName(obj.metadata.generateName ?? '');
          storage.create(`/registry/configmaps/bench-post/${obj.metadata.name}`, JSON.stringify(obj)).then(
            (rev) => {
              obj.metadata.resourceVersion = String(rev);
              reply(res, 201, JSON.stringify(obj) + '\n');
            },
            (e: unknown) => (isStorageError(e, 'KeyExists') && attempt < 7 ? store(attempt + 1) : reply(res, 500, JSON.stringify({ error: String(e) }))),
          );
        };
        store(0);
      });
      return;
    }
    const body = bodies.get((req.url ?? '/').slice(1));
    if (!body) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': body.length });
    res.end(body);
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => process.stdout.write(`bare listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`));
  process.on('SIGTERM', () => void (storage?.close() ?? Promise.resolve()).finally(() => process.exit(0)));
}

// ------------------------------------------------------------------ processes

interface Proc {
  proc: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/** The checkout of `--before` (empty: none). */
const BEFORE = arg('before', '');

function startProcess(args: string[], pattern: RegExp, label: string, cwd = ROOT): Promise<Proc> {
  // The server's stack flag given here (as test/e2e/harness.ts does): the pid measured is then the server itself, not a re-exec parent.
  const proc = spawn(process.execPath, [...serverStackArgs(), '--import', 'tsx', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`${label} did not start in 60 s: ${out} ${err}`)), 60_000);
    proc.once('exit', (code) => rej(new Error(`${label} exited with ${code}: ${out} ${err}`)));
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = pattern.exec(out);
      if (m) {
        clearTimeout(timer);
        res({
          proc,
          url: m[1],
          stop: async () => {
            if (proc.exitCode !== null || proc.signalCode !== null) return;
            const exited = new Promise<void>((r) => proc.once('exit', () => r()));
            proc.kill('SIGTERM');
            await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
            if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
          },
        });
      }
    });
  });
}

// ------------------------------------------------------------------ HTTP helpers (orchestrator side)

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

interface Reply {
  status: number;
  body: Buffer;
}

function call(base: string, method: string, path: string, token: string | undefined, body?: unknown): Promise<Reply> {
  const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string> = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (data) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(data.length);
  }
  return new Promise((res, rej) => {
    const req = request(new URL(path, base), { method, headers, agent }, (r) => {
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => res({ status: r.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    req.setTimeout(60_000, () => req.destroy(new Error(`timeout ${method} ${path}`)));
    req.on('error', rej);
    req.end(data);
  });
}

async function must(p: Promise<Reply>, status: number, what: string): Promise<Reply> {
  const r = await p;
  if (r.status !== status) throw new Error(`${what}: HTTP ${r.status}: ${r.body.toString().slice(0, 300)}`);
  return r;
}

// ------------------------------------------------------------------ autocannon (separate process)

interface Load {
  rps: number;
  requests: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

interface LoadOptions {
  connections: number;
  method?: string;
  body?: string;
  token?: string;
}

function loadgen(url: string, o: LoadOptions): Promise<Load> {
  return WRK ? wrk(url, o) : autocannon(url, o);
}

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((res, rej) => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('exit', (code) => (code === 0 ? res(out) : rej(new Error(`${cmd} exited ${code}: ${err}`))));
  });
}

async function autocannon(url: string, o: LoadOptions): Promise<Load> {
  const args = [AUTOCANNON, '--json', '-c', String(o.connections), '-d', String(SECONDS), '-m', o.method ?? 'GET'];
  if (o.token) args.push('-H', `Authorization=Bearer ${o.token}`);
  if (o.body !== undefined) args.push('-H', 'Content-Type=application/json', '-b', o.body);
  args.push(url);
  const j = JSON.parse(await run(process.execPath, args)) as { requests: { average: number; total: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number; timeouts: number };
  return { rps: j.requests.average, requests: j.requests.total, p50: j.latency.p50, p99: j.latency.p99, non2xx: j.non2xx, errors: j.errors + j.timeouts };
}

let wrkScripts = 0;

async function wrk(url: string, o: LoadOptions): Promise<Load> {
  const script = join(scriptDir, `wrk-${wrkScripts++}.lua`);
  const lines = [`wrk.method = ${JSON.stringify(o.method ?? 'GET')}`];
  if (o.token) lines.push(`wrk.headers["Authorization"] = ${JSON.stringify(`Bearer ${o.token}`)}`);
  if (o.body !== undefined) {
    lines.push('wrk.headers["Content-Type"] = "application/json"');
    lines.push(`wrk.body = ${JSON.stringify(o.body)}`);
  }
  writeFileSync(script, lines.join('\n') + '\n');
  const out = await run(WRK as string, ['-t', '1', '-c', String(o.connections), '-d', `${SECONDS}s`, '--timeout', '10s', '--latency', '-s', script, url]);
  const num = (re: RegExp): number => Number(re.exec(out)?.[1] ?? 0);
  const ms = (re: RegExp): number => {
    const m = re.exec(out);
    if (!m) return NaN;
    const unit = m[2];
    return Number(m[1]) * (unit === 'us' ? 0.001 : unit === 's' ? 1000 : unit === 'm' ? 60_000 : 1);
  };
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    rps: num(/Requests\/sec:\s+([\d.]+)/),
    requests: num(/(\d+) requests in /),
    p50: ms(/\n\s+50%\s+([\d.]+)(us|ms|s|m)\b/),
    p99: ms(/\n\s+99%\s+([\d.]+)(us|ms|s|m)\b/),
    non2xx: num(/Non-2xx or 3xx responses: (\d+)/),
    errors: sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
  };
}

// ------------------------------------------------------------------ figures

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const fmt = (n: number, d = 0): string => n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
const verdict = (ok: boolean): string => (ok ? 'meets target' : 'BELOW TARGET');

/** A server under load: its name in the output, its process (for CPU time) and one load round against it. */
interface Side {
  readonly name: string;
  readonly pid: number | undefined;
  readonly round: () => Promise<Load>;
}

interface SideFigures {
  /** Median requests/s. */
  readonly rps: number;
  /** Median server CPU (user + system, all threads) per request in µs; NaN without /proc. */
  readonly cpu: number;
}

/** One unrecorded warm-up round per side, then ROUNDS interleaved rounds; medians per side. */
async function sideBySide(label: string, sides: readonly Side[]): Promise<Map<string, SideFigures>> {
  const rps = new Map<string, number[]>(sides.map((s) => [s.name, []]));
  const cpu = new Map<string, number[]>(sides.map((s) => [s.name, []]));
  const check = (r: Load, which: string): void => {
    if (r.non2xx || r.errors) throw new Error(`${label} (${which}): ${r.non2xx} non-2xx, ${r.errors} errors`);
  };
  // Warm-up: every server reaches steady state (JIT, caches) before measuring.
  for (const side of sides) check(await side.round(), `${side.name} warm-up`);
  for (let i = 0; i < ROUNDS; i++) {
    for (const side of sides) {
      const before = processCpuUs(side.pid);
      const r = await side.round();
      const after = processCpuUs(side.pid);
      check(r, side.name);
      const perRequest = before !== undefined && after !== undefined && r.requests > 0 ? (after - before) / r.requests : NaN;
      rps.get(side.name)?.push(r.rps);
      cpu.get(side.name)?.push(perRequest);
      const cpuText = Number.isNaN(perRequest) ? '' : `, ${fmt(perRequest)} µs CPU/request`;
      process.stdout.write(`  ${label} round ${i + 1} ${side.name}: ${fmt(r.rps)} req/s (p50 ${fmt(r.p50, 2)} ms, p99 ${fmt(r.p99, 2)} ms${cpuText})\n`);
    }
  }
  return new Map(sides.map((s) => [s.name, { rps: median(rps.get(s.name) ?? []), cpu: median(cpu.get(s.name) ?? []) }]));
}

/** Median requests/s of `side` and of `baseline` from side-by-side figures, and their ratio. */
function ratioOf(figures: Map<string, SideFigures>, side: string, baseline: string): { rps: number; baselineRps: number; ratio: number } {
  const rps = figures.get(side)?.rps ?? NaN;
  const baselineRps = figures.get(baseline)?.rps ?? NaN;
  return { rps, baselineRps, ratio: rps / baselineRps };
}

/** "server CPU per <what>, µs: bare 40, ours 190, ..." (nothing where /proc is missing). */
function writeCpuLine(what: string, figures: Map<string, SideFigures>): void {
  const parts = [...figures].filter(([, f]) => !Number.isNaN(f.cpu)).map(([name, f]) => `${name} ${fmt(f.cpu)}`);
  if (parts.length) process.stdout.write(`                    server CPU per ${what}, µs: ${parts.join(', ')}\n`);
}

/** Median time of `n` sequential GETs of `path` (one keep-alive connection). */
async function timeSequential(base: string, path: string, token: string | undefined, n: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n + 2; i++) {
    const t0 = performance.now();
    await must(call(base, 'GET', path, token), 200, `GET ${path}`);
    if (i >= 2) times.push(performance.now() - t0); // two warm-ups
  }
  return median(times);
}

// ------------------------------------------------------------------ seeding (in-process, before the server starts)

function configMap(name: string, i: number): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, labels: { app: 'bench', shard: String(i % 16) }, annotations: { 'bench.cluster.io/note': 'seeded' } },
    data: { index: String(i), 'config.yaml': `replicas: 3\nimage: registry.example.com/app:${i}\nmode: fast\n`, blob: 'x'.repeat(256) },
  };
}

async function seed(dataDir: string): Promise<void> {
  const { loadGenerated, buildApiServer } = await import('../runtime/http/bootstrap.ts');
  const { TokenAuthenticator } = await import('../runtime/http/auth.ts');
  const { openStorage } = await import('../runtime/storage/index.ts');
  const gen = await loadGenerated(join(ROOT, 'out'));
  const storage = openStorage({ kind: 'sqlite', dataDir });
  const built = await buildApiServer(gen, { storage, authenticator: TokenAuthenticator.fromCsv('') });
  const ns = built.registry.storeFor('', 'namespaces');
  const cms = built.registry.storeFor('', 'configmaps');
  if (!ns || !cms) throw new Error('no namespaces/configmaps store');
  for (const n of ['bench-get', 'bench-post', 'bench-watch', 'bench-10k', 'bench-100k']) {
    await ns.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: n } });
  }
  await cms.create('bench-get', configMap('cm-get', 0));
  for (const [namespace, count] of [['bench-10k', SMALL], ['bench-100k', LARGE]] as const) {
    const t0 = performance.now();
    for (let i = 0; i < count; i += 2000) {
      const batch: Promise<unknown>[] = [];
      for (let j = i; j < Math.min(count, i + 2000); j++) batch.push(cms.create(namespace, configMap(`cm-${String(j).padStart(6, '0')}`, j)));
      await Promise.all(batch);
    }
    process.stdout.write(`  seeded ${fmt(count)} ConfigMaps in ${namespace} in ${fmt((performance.now() - t0) / 1000, 1)} s\n`);
  }
  built.stop();
  await storage.close();
}

// ------------------------------------------------------------------ watchers

interface Watcher {
  res: IncomingMessage;
  buf: string;
}

async function openWatchers(base: string, token: string, path: string, n: number): Promise<{ watchers: Watcher[]; onLine: (cb: (w: number, line: string) => void) => void; close: () => void }> {
  let listener: (w: number, line: string) => void = () => undefined;
  const watchers: Watcher[] = [];
  const reqs: ReturnType<typeof request>[] = [];
  const opened = Array.from(
    { length: n },
    (_, i) =>
      new Promise<void>((res, rej) => {
        const req = request(new URL(path, base), { headers: { Authorization: `Bearer ${token}` }, agent: false }, (r) => {
          if (r.statusCode !== 200) return rej(new Error(`watch ${i}: HTTP ${r.statusCode}`));
          const w: Watcher = { res: r, buf: '' };
          watchers[i] = w;
          r.setEncoding('utf8');
          r.on('data', (chunk: string) => {
            w.buf += chunk;
            let k: number;
            while ((k = w.buf.indexOf('\n')) >= 0) {
              const line = w.buf.slice(0, k);
              w.buf = w.buf.slice(k + 1);
              listener(i, line);
            }
          });
          r.on('error', () => undefined);
          res();
        });
        req.on('error', rej);
        reqs.push(req);
        req.end();
      }),
  );
  await Promise.all(opened);
  return {
    watchers,
    onLine: (cb) => (listener = cb),
    close: () => {
      for (const r of reqs) r.destroy();
    },
  };
}

async function watchFanout(base: string, token: string): Promise<number[]> {
  const path = '/api/v1/namespaces/bench-watch/configmaps?watch=true&timeoutSeconds=600';
  const w = await openWatchers(base, token, path, WATCHERS);
  const latencies: number[] = [];
  try {
    for (let k = 0; k < WATCH_WRITES + 1; k++) {
      const name = `fan-${k}`;
      const got = new Set<number>();
      let last = 0;
      const all = new Promise<void>((res) => {
        w.onLine((i, line) => {
          if (!line.includes(`"name":"${name}"`)) return;
          got.add(i);
          last = performance.now();
          if (got.size === WATCHERS) res();
        });
      });
      await new Promise((r) => setTimeout(r, 100));
      const t0 = performance.now();
      await must(call(base, 'POST', '/api/v1/namespaces/bench-watch/configmaps', token, configMap(name, k)), 201, 'watch write');
      const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 10_000));
      if ((await Promise.race([all, timeout])) === 'timeout') throw new Error(`only ${got.size} of ${WATCHERS} watchers received ${name} in 10 s`);
      if (k > 0) latencies.push(last - t0); // the first write warms up
    }
  } finally {
    w.close();
  }
  return latencies;
}

// ------------------------------------------------------------------ main

async function main(): Promise<void> {
  const started = performance.now();
  const work = mkdtempSync(join(tmpdir(), 'clusterspec-bench-'));
  const procs: Proc[] = [];
  try {
    process.stdout.write(`clusterspec bench:server — node ${process.version}; transport: plain HTTP for both servers (ours with --insecure-http); storage: sqlite (synchronous=FULL)\n`);
    scriptDir = work;
    process.stdout.write(`load generator: ${WRK ? `wrk (${WRK}, 1 thread)` : 'autocannon CLI'} in its own process, ${ROUNDS} interleaved rounds of ${SECONDS} s per side\n\n`);
    process.stdout.write('seeding (in-process, through the registry, before the server starts)\n');
    const dataDir = join(work, 'data');
    await seed(dataDir);

    // the other checkout's server gets its own copy of the seeded data (SQLite locks its directory)
    const beforeDir = join(work, 'data-before');
    if (BEFORE) cpSync(dataDir, beforeDir, { recursive: true });
    const ours = await startProcess(['runtime/cli.ts', '--port', '0', '--address', '127.0.0.1', '--storage', 'sqlite', '--insecure-http', '--data-dir', dataDir], /listening on (http:\/\/127\.0\.0\.1:\d+)/, 'server');
    procs.push(ours);
    const token = readFileSync(join(dataDir, 'admin.token'), 'utf8').trim();
    const before = BEFORE
      ? await startProcess(['runtime/cli.ts', '--port', '0', '--address', '127.0.0.1', '--storage', 'sqlite', '--insecure-http', '--data-dir', beforeDir], /listening on (http:\/\/127\.0\.0\.1:\d+)/, 'server (before)', resolve(BEFORE))
      : undefined;
    if (before) procs.push(before);
    // its own admin token: the copy was taken before either server wrote one
    const beforeToken = before ? readFileSync(join(beforeDir, 'admin.token'), 'utf8').trim() : '';
    const beforeSides = (round: (url: string, auth: string) => () => Promise<Load>): Side[] => (before ? [{ name: 'before', pid: before.proc.pid, round: round(before.url, beforeToken) }] : []);

    // Bodies of the same size for the bare server: our actual responses.
    const getPath = '/api/v1/namespaces/bench-get/configmaps/cm-get';
    const getBody = (await must(call(ours.url, 'GET', getPath, token), 200, 'GET by name')).body.toString();
    const page10k = (await must(call(ours.url, 'GET', `/api/v1/namespaces/bench-10k/configmaps?limit=${PAGE}`, token), 200, 'list')).body.toString();
    const bodiesFile = join(work, 'bodies.json');
    writeFileSync(bodiesFile, JSON.stringify({ get: getBody, page: page10k }));
    const bare = await startProcess(['bench/server.ts', '--bare', bodiesFile], /bare listening on (http:\/\/127\.0\.0\.1:\d+)/, 'bare server');
    procs.push(bare);

    // 1. GET by name.
    process.stdout.write(`\nGET by name (${Buffer.byteLength(getBody)}-byte body, ${GET_CONNECTIONS} connections)\n`);
    const getFigures = await sideBySide('GET', [
      { name: 'bare', pid: bare.proc.pid, round: () => loadgen(`${bare.url}/get`, { connections: GET_CONNECTIONS }) },
      { name: 'ours', pid: ours.proc.pid, round: () => loadgen(ours.url + getPath, { connections: GET_CONNECTIONS, token }) },
      ...beforeSides((url, auth) => () => loadgen(url + getPath, { connections: GET_CONNECTIONS, token: auth })),
    ]);
    const get = ratioOf(getFigures, 'ours', 'bare');

    // 2. Durable create (generateName: every request creates a new object; each 201 is committed to disk).
    const createBody = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'post-', labels: { app: 'bench' } }, data: { 'config.yaml': 'replicas: 3\nimage: registry.example.com/app:1\n', blob: 'x'.repeat(256) } });
    process.stdout.write(
      `\ndurable create (${Buffer.byteLength(createBody)}-byte body, ${POST_CONNECTIONS} connections; bare: parse + stringify + 201; ` +
        'bare+storage: the same plus a durable SqliteStorage.create; ours-memory: our server on --storage memory)\n',
    );
    // The bare server with durable storage, and our server on memory storage (the API path of a create without durability).
    const bareDurable = await startProcess(['bench/server.ts', '--bare', bodiesFile, join(work, 'bare-storage')], /bare listening on (http:\/\/127\.0\.0\.1:\d+)/, 'bare server (storage)');
    procs.push(bareDurable);
    const memDir = join(work, 'memory');
    const oursMemory = await startProcess(['runtime/cli.ts', '--port', '0', '--address', '127.0.0.1', '--storage', 'memory', '--insecure-http', '--data-dir', memDir], /listening on (http:\/\/127\.0\.0\.1:\d+)/, 'server (memory)');
    procs.push(oursMemory);
    const memToken = readFileSync(join(memDir, 'admin.token'), 'utf8').trim();
    await must(call(oursMemory.url, 'POST', '/api/v1/namespaces', memToken, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench-post' } }), 201, 'namespace on memory');
    const post = (url: string, auth?: string) => () => loadgen(url, { connections: POST_CONNECTIONS, method: 'POST', body: createBody, token: auth });
    const createFigures = await sideBySide('POST', [
      { name: 'bare', pid: bare.proc.pid, round: post(`${bare.url}/post`) },
      { name: 'ours', pid: ours.proc.pid, round: post(`${ours.url}/api/v1/namespaces/bench-post/configmaps`, token) },
      ...beforeSides((url, auth) => post(`${url}/api/v1/namespaces/bench-post/configmaps`, auth)),
      { name: 'bare+storage', pid: bareDurable.proc.pid, round: post(`${bareDurable.url}/durable`) },
      { name: 'ours-memory', pid: oursMemory.proc.pid, round: post(`${oursMemory.url}/api/v1/namespaces/bench-post/configmaps`, memToken) },
    ]);
    await oursMemory.stop();
    await bareDurable.stop();
    const create = ratioOf(createFigures, 'ours', 'bare');
    const durableFloor = ratioOf(createFigures, 'bare+storage', 'bare');
    const apiOnly = ratioOf(createFigures, 'ours-memory', 'bare');

    // 3. LIST pages of 500: the first page and a page from the middle (continue token), per collection size.
    process.stdout.write(`\nLIST limit=${PAGE} (sequential, one connection, median of ${LIST_SAMPLES})\n`);
    const pageTimes: Record<string, { first: number; middle: number; bytes: number }> = {};
    for (const [ns, count] of [['bench-10k', SMALL], ['bench-100k', LARGE]] as const) {
      const base = `/api/v1/namespaces/${ns}/configmaps?limit=${PAGE}`;
      // Walk to the middle of the collection for a continue token.
      let token2 = '';
      let bytes = 0;
      for (let p = 0; p < count / PAGE / 2; p++) {
        const r = await must(call(ours.url, 'GET', token2 ? `${base}&continue=${encodeURIComponent(token2)}` : base, token), 200, 'list page');
        const j = JSON.parse(r.body.toString()) as { metadata: { continue?: string }; items: unknown[] };
        if (j.items.length !== PAGE) throw new Error(`page of ${j.items.length} items`);
        token2 = j.metadata.continue ?? '';
        bytes = r.body.length;
      }
      const first = await timeSequential(ours.url, base, token, LIST_SAMPLES);
      const middle = await timeSequential(ours.url, `${base}&continue=${encodeURIComponent(token2)}`, token, LIST_SAMPLES);
      pageTimes[ns] = { first, middle, bytes };
      process.stdout.write(`  out of ${fmt(count).padStart(7)}: first page ${fmt(first, 2)} ms, middle page ${fmt(middle, 2)} ms (${fmt(bytes)} bytes)\n`);
    }
    const barePage = await timeSequential(bare.url, '/page', undefined, LIST_SAMPLES);
    process.stdout.write(`  bare server, same-size body: ${fmt(barePage, 2)} ms\n`);

    // 4. 1,000 watchers, one write.
    process.stdout.write(`\n${WATCHERS} watchers, one write each time (${WATCH_WRITES} writes after a warm-up)\n`);
    const fan = await watchFanout(ours.url, token);
    process.stdout.write(`  write → last watcher: ${fan.map((x) => fmt(x, 1)).join(', ')} ms\n`);

    // Summary.
    const small = pageTimes['bench-10k'];
    const large = pageTimes['bench-100k'];
    const fanMedian = median(fan);
    process.stdout.write('\nsummary (medians)\n');
    process.stdout.write(`  GET by name       ours ${fmt(get.rps)} req/s, bare ${fmt(get.baselineRps)} req/s, ratio ${get.ratio.toFixed(2)} (target >= 0.70: ${verdict(get.ratio >= 0.7)})\n`);
    writeCpuLine('GET', getFigures);
    process.stdout.write(`  durable create    ours ${fmt(create.rps)} req/s, bare ${fmt(create.baselineRps)} req/s, ratio ${create.ratio.toFixed(2)} (target >= 0.50: ${verdict(create.ratio >= 0.5)})\n`);
    process.stdout.write(`                    for reference: bare+storage ${fmt(durableFloor.rps)} req/s (ratio ${durableFloor.ratio.toFixed(2)}), ours-memory ${fmt(apiOnly.rps)} req/s (ratio ${apiOnly.ratio.toFixed(2)})\n`);
    writeCpuLine('create', createFigures);
    process.stdout.write(
      `  LIST page of 500  first page: 10k ${fmt(small.first, 2)} ms, 100k ${fmt(large.first, 2)} ms, ratio 100k/10k ${(large.first / small.first).toFixed(2)}; middle page: 10k ${fmt(small.middle, 2)} ms, 100k ${fmt(large.middle, 2)} ms, ratio ${(large.middle / small.middle).toFixed(2)} (target: no growth, ~1.0)\n`,
    );
    process.stdout.write(`  ${WATCHERS} watchers     write → last watcher ${fmt(fanMedian, 1)} ms (target <= 50 ms: ${verdict(fanMedian <= 50)})\n`);
    if (before) {
      const g = ratioOf(getFigures, 'ours', 'before');
      const c = ratioOf(createFigures, 'ours', 'before');
      process.stdout.write(`  against --before  GET ours/before ${g.ratio.toFixed(2)} (${fmt(g.baselineRps)} req/s before), durable create ours/before ${c.ratio.toFixed(2)} (${fmt(c.baselineRps)} req/s before)\n`);
    }
    process.stdout.write(`\ntotal ${fmt((performance.now() - started) / 1000, 0)} s\n`);
  } finally {
    agent.destroy();
    for (const p of procs.reverse()) await p.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--bare') {
  void bareServer(process.argv[3], process.argv[4]);
} else {
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      process.stderr.write(`bench failed: ${(e as Error).stack ?? String(e)}\n`);
      process.exit(1);
    },
  );
}
