// `npm run bench:etcd`: the etcd backend against raw etcd calls through the same client, side by side.
//
// For each operation, W concurrent workers run for BENCH_SECONDS: EtcdStorage.create (a Txn on create
// revision 0) against raw Put and against the same raw Txn, and EtcdStorage.get against raw Range, on
// ~1 KB ConfigMap-like values. With a throwaway member, etcd's own CPU per call is printed too (from
// /proc): it tells what a Txn costs etcd beyond a Put.
// The two sides alternate in short rounds (the machine is shared: load shifts hit both alike); the
// median rate of each side, the median of the per-round ratios storage/raw (target for creates: at
// least 0.8x) and the client's CPU per call (process.cpuUsage: etcd runs in its own process) are
// printed. The etcd member is a throwaway one on loopback unless BENCH_ETCD_SERVERS names one.
//
// Then GET and LIST throughput through one API server replica against two on the same etcd
// (bench/etcd-replicas.ts), printing the ratio.
//
// Env: BENCH_SECONDS (default 0.5), BENCH_ROUNDS (default 15), BENCH_WORKERS (default "1,32");
// BENCH_REPLICAS=0 leaves the replica section out (its own variables: bench/etcd-replicas.ts).

import { randomBytes } from 'node:crypto';
import { EtcdStorage } from '../runtime/storage/etcd.ts';
import { startEtcdMember, type EtcdMember } from '../runtime/storage/etcd-test-member.ts';
import { processCpuUs } from '../test/e2e/process-cpu.ts';
import { replicaThroughput } from './etcd-replicas.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 0.5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const WORKERS = (process.env.BENCH_WORKERS ?? '1,32').split(',').map(Number);

const VALUES = Array.from({ length: 256 }, (_, i) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `v${i}`, namespace: 'bench' }, data: { pad: randomBytes(450).toString('hex') } }),
);
const RUN = randomBytes(4).toString('hex');
let counter = 0;

interface Sample {
  perSec: number;
  /** This process's CPU (all threads) per call, in microseconds. */
  cpuUs: number;
  /** The etcd member's CPU per call, in microseconds (NaN when the member is not ours). */
  etcdUs: number;
}

let etcdPid: number | undefined;

/** The etcd process's user + system CPU in microseconds (NaN when the member is not ours or without /proc). */
const etcdCpuUs = (): number => processCpuUs(etcdPid) ?? NaN;

/** Calls `op` from `workers` concurrent loops for SECONDS. */
async function measure(workers: number, op: (i: number) => Promise<unknown>): Promise<Sample> {
  const end = performance.now() + SECONDS * 1000;
  let done = 0;
  const start = performance.now();
  const cpu = process.cpuUsage();
  const etcd0 = etcdCpuUs();
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < end) {
        await op(counter++);
        done++;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return { perSec: done / ((performance.now() - start) / 1000), cpuUs: (used.user + used.system) / done, etcdUs: (etcdCpuUs() - etcd0) / done };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  let member: EtcdMember | undefined;
  let endpoints: string[];
  if (process.env.BENCH_ETCD_SERVERS) endpoints = process.env.BENCH_ETCD_SERVERS.split(',');
  else {
    member = await startEtcdMember();
    endpoints = [member.endpoint];
    etcdPid = member.process.pid;
  }
  const storage = new EtcdStorage({ endpoints, prefix: `/bench-${RUN}`, compactionIntervalSeconds: 0 });
  const kv = storage.rawKv();
  const rawPrefix = `/bench-${RUN}-raw`;
  try {
    // warm-up: connections, the protobuf codecs, JIT
    await measure(8, (i) => storage.create(`/core/configmaps/warm/s${i}`, VALUES[i % VALUES.length]));
    await measure(8, (i) => kv.put({ key: Buffer.from(`${rawPrefix}/warm/r${i}`), value: Buffer.from(VALUES[i % VALUES.length]) }));
    const readKeys = 1000;
    for (let i = 0; i < readKeys; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, (_, j) => {
          const n = i + j;
          const value = VALUES[n % VALUES.length];
          return Promise.all([storage.create(`/core/configmaps/read/k${n}`, value), kv.put({ key: Buffer.from(`${rawPrefix}/read/k${n}`), value: Buffer.from(value) })]);
        }),
      );
    }
    const rows: string[] = [];
    for (const workers of WORKERS) {
      const s = { create: [] as Sample[], put: [] as Sample[], txn: [] as Sample[], get: [] as Sample[], range: [] as Sample[] };
      for (let round = 0; round < ROUNDS; round++) {
        const put = (): Promise<Sample> => measure(workers, (i) => kv.put({ key: Buffer.from(`${rawPrefix}/w/r${i}`), value: Buffer.from(VALUES[i % VALUES.length]) }));
        const create = (): Promise<Sample> => measure(workers, (i) => storage.create(`/core/configmaps/w/s${i}`, VALUES[i % VALUES.length]));
        const txn = (): Promise<Sample> =>
          measure(workers, (i) => {
            const key = Buffer.from(`${rawPrefix}/t/r${i}`);
            return kv.txn({ compare: [{ key, target: 'Create', result: 'Equal', create_revision: 0 }], success: [{ request_put: { key, value: Buffer.from(VALUES[i % VALUES.length]) } }] });
          });
        const range = (): Promise<Sample> => measure(workers, (i) => kv.range({ key: Buffer.from(`${rawPrefix}/read/k${i % readKeys}`) }));
        const get = (): Promise<Sample> => measure(workers, (i) => storage.get(`/core/configmaps/read/k${i % readKeys}`));
        // each side goes first in every other round
        if (round % 2 === 0) {
          s.put.push(await put());
          s.create.push(await create());
          s.txn.push(await txn());
          s.range.push(await range());
          s.get.push(await get());
        } else {
          s.txn.push(await txn());
          s.create.push(await create());
          s.put.push(await put());
          s.get.push(await get());
          s.range.push(await range());
        }
      }
      const line = (name: string, ours: Sample[], raw: Sample[], rawName: string): string => {
        const rate = (xs: Sample[]): string => {
          const etcd = median(xs.map((x) => x.etcdUs));
          return `${median(xs.map((x) => x.perSec)).toFixed(0).padStart(6)}/s (CPU us: ${median(xs.map((x) => x.cpuUs)).toFixed(0)} client${Number.isNaN(etcd) ? '' : `, ${etcd.toFixed(0)} etcd`})`;
        };
        const ratio = median(ours.map((o, i) => o.perSec / raw[i].perSec));
        return `${name.padEnd(24)} ${rate(ours)}   ${rawName.padEnd(9)} ${rate(raw)}   ratio ${ratio.toFixed(2)}x`;
      };
      rows.push(line(`create, ${workers} worker(s)`, s.create, s.put, 'raw put'));
      rows.push(line(`create, ${workers} worker(s)`, s.create, s.txn, 'raw txn'));
      rows.push(line(`get, ${workers} worker(s)`, s.get, s.range, 'raw range'));
    }
    process.stdout.write(`etcd backend vs raw etcd calls through the same client (${endpoints.join(',')}; ${ROUNDS} alternating rounds of ${SECONDS} s, medians)\n`);
    for (const r of rows) process.stdout.write(r + '\n');
    process.stdout.write('target: create at least 0.8x raw put\n');
    if (process.env.BENCH_REPLICAS !== '0') {
      process.stdout.write('\n');
      for (const l of await replicaThroughput(endpoints[0], etcdPid)) process.stdout.write(l + '\n');
    }
  } finally {
    await storage.close();
    await member?.stop();
  }
}

await main();
