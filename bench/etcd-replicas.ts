// The replica section of `npm run bench:etcd`: GET by name and LIST (100 objects) throughput through
// one API server replica against two replicas sharing the same etcd, in one run.
//
// Two server processes (runtime/cli.ts, plain HTTP with a static token) on the member; the load is
// always two autocannon processes with CONNECTIONS each, so that the load generator costs the same on
// both sides: for "1 replica" both aim at replica A, for "2 replicas" one at A and one at B. Sides
// alternate in rounds after a warm-up; medians are printed with the servers' and etcd's CPU per
// request (from /proc), which tell what limits the figure on a machine of few cores.
//
// Env: BENCH_REPLICA_SECONDS (default 3), BENCH_REPLICA_ROUNDS (default 3), BENCH_REPLICA_CONNECTIONS
// (per load process, default 8).

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { processCpuUs } from '../test/e2e/process-cpu.ts';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serverStackArgs } from '../runtime/stack-size.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const AUTOCANNON = join(ROOT, 'node_modules', 'autocannon', 'autocannon.js');
const SECONDS = Number(process.env.BENCH_REPLICA_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_REPLICA_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_REPLICA_CONNECTIONS ?? 8);
const TOKEN = 'bench-replicas-token';
const NS = 'bench';
const OBJECTS = 100;

interface Replica {
  url: string;
  proc: ChildProcess;
}

/** utime + stime of a process in µs (NaN where there is no /proc). */
const cpuUs = (pid: number | undefined): number => processCpuUs(pid) ?? NaN;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function startReplica(endpoint: string, prefix: string, dataDir: string, tokenFile: string): Promise<Replica> {
  const proc = spawn(
    process.execPath,
    [...serverStackArgs(), '--import', 'tsx', 'runtime/cli.ts', '--port', '0', '--address', '127.0.0.1', '--storage', 'etcd', '--etcd-servers', endpoint, '--etcd-prefix', prefix, '--data-dir', dataDir, '--insecure-http', '--token-file', tokenFile],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  proc.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((res, rej) => {
    const t = setTimeout(() => rej(new Error(`replica did not start in 60 s: ${err}`)), 60_000);
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(t);
        res(m[1]);
      }
    });
    proc.once('exit', (code) => rej(new Error(`replica exited ${code}: ${err}`)));
  });
  return { url, proc };
}

async function stopReplica(r: Replica): Promise<void> {
  if (r.proc.exitCode !== null) return;
  const exited = new Promise((res) => r.proc.once('exit', res));
  r.proc.kill('SIGTERM');
  const t = setTimeout(() => r.proc.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(t);
}

function autocannon(url: string): Promise<{ requests: number; non2xx: number; errors: number }> {
  return new Promise((res, rej) => {
    const p = spawn(process.execPath, [AUTOCANNON, '--json', '-c', String(CONNECTIONS), '-d', String(SECONDS), '-H', `Authorization=Bearer ${TOKEN}`, url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('exit', (code) => {
      if (code !== 0) return rej(new Error(`autocannon exited ${code}: ${err}`));
      const j = JSON.parse(out) as { requests: { total: number }; non2xx: number; errors: number; timeouts: number };
      res({ requests: j.requests.total, non2xx: j.non2xx, errors: j.errors + j.timeouts });
    });
  });
}

interface Round {
  perSec: number;
  /** Server CPU (all replicas) per request, µs. */
  serverUs: number;
  /** etcd's CPU per request, µs. */
  etcdUs: number;
}

/** Two load processes at once against `targets`; requests/s summed, CPU per request of the replicas and of etcd. */
async function round(targets: [string, string], replicas: Replica[], etcdPid: number | undefined): Promise<Round> {
  const s0 = replicas.reduce((a, r) => a + cpuUs(r.proc.pid), 0);
  const e0 = cpuUs(etcdPid);
  const t0 = performance.now();
  const results = await Promise.all(targets.map((u) => autocannon(u)));
  const secs = (performance.now() - t0) / 1000;
  for (const r of results) if (r.non2xx || r.errors) throw new Error(`replica bench: ${r.non2xx} non-2xx, ${r.errors} errors`);
  const requests = results.reduce((a, r) => a + r.requests, 0);
  return {
    perSec: requests / Math.min(secs, SECONDS + 0.2),
    serverUs: (replicas.reduce((a, r) => a + cpuUs(r.proc.pid), 0) - s0) / requests,
    etcdUs: (cpuUs(etcdPid) - e0) / requests,
  };
}

/** Runs the section against the etcd at `endpoint` and returns its printed lines. */
export async function replicaThroughput(endpoint: string, etcdPid: number | undefined): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-replicas-'));
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, `${TOKEN},bench,bench,"system:masters"\n`);
  const prefix = `/bench-replicas-${process.pid}`;
  const replicas: Replica[] = [];
  try {
    replicas.push(await startReplica(endpoint, prefix, join(dir, 'a'), tokenFile));
    replicas.push(await startReplica(endpoint, prefix, join(dir, 'b'), tokenFile));
    const [a, b] = replicas.map((r) => r.url);
    const post = async (path: string, body: unknown): Promise<void> => {
      const res = await fetch(a + path, { method: 'POST', headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      if (res.status !== 201 && res.status !== 409) throw new Error(`seeding ${path}: ${res.status} ${await res.text()}`);
    };
    await post('/api/v1/namespaces', { metadata: { name: NS } });
    for (let i = 0; i < OBJECTS; i += 20) {
      await Promise.all(Array.from({ length: 20 }, (_, j) => post(`/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: `cm-${i + j}` }, data: { pad: 'x'.repeat(400) } })));
    }
    const paths = { 'GET by name': `/api/v1/namespaces/${NS}/configmaps/cm-7`, [`LIST ${OBJECTS}`]: `/api/v1/namespaces/${NS}/configmaps` };
    const lines: string[] = [];
    for (const [name, path] of Object.entries(paths)) {
      const one: [string, string] = [a + path, a + path];
      const two: [string, string] = [a + path, b + path];
      await round(one, replicas, etcdPid); // warm-up, both replicas
      await round(two, replicas, etcdPid);
      const r1: Round[] = [];
      const r2: Round[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        if (i % 2 === 0) {
          r1.push(await round(one, replicas, etcdPid));
          r2.push(await round(two, replicas, etcdPid));
        } else {
          r2.push(await round(two, replicas, etcdPid));
          r1.push(await round(one, replicas, etcdPid));
        }
      }
      const fmt = (rs: Round[]): string =>
        `${median(rs.map((r) => r.perSec)).toFixed(0).padStart(6)}/s (CPU us per request: ${median(rs.map((r) => r.serverUs)).toFixed(0)} servers, ${median(rs.map((r) => r.etcdUs)).toFixed(0)} etcd)`;
      const ratio = median(r2.map((r, i) => r.perSec / r1[i].perSec));
      lines.push(`${name.padEnd(12)} 1 replica ${fmt(r1)}   2 replicas ${fmt(r2)}   ratio ${ratio.toFixed(2)}x (median of the rounds' ratios)`);
    }
    lines.unshift(`GET and LIST through 1 vs 2 API server replicas on one etcd (2 autocannon processes x ${CONNECTIONS} connections; ${ROUNDS} alternating rounds of ${SECONDS} s, medians; ${cpus().length} cores, load average ${loadavg()[0].toFixed(1)} at the end)`);
    return lines;
  } finally {
    for (const r of replicas) await stopReplica(r);
    rmSync(dir, { recursive: true, force: true });
  }
}
