// `npm run bench:storage`: durable writes straight against the storage backends, no HTTP.
//
// 100 concurrent writers create keys with random names and ~1 KB values for BENCH_SECONDS each
// round; backends run interleaved (memory, sqlite FULL, sqlite NORMAL, ...) and medians are printed.
// Main-thread cost per write is the event loop's active time (performance.eventLoopUtilization):
// process.cpuUsage() sums every thread (the libuv pool that runs the WAL fsync), so it is printed apart as
// "process CPU". The writers themselves run on the main thread; the memory backend shows that floor.
//
// Env: BENCH_SECONDS (default 3), BENCH_ROUNDS (default 3), BENCH_WRITERS (default 100).

import { rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { randomBytes } from 'node:crypto';
import { MemoryStorage } from '../runtime/storage/memory.ts';
import { SqliteStorage } from '../runtime/storage/sqlite.ts';
import type { Storage } from '../runtime/storage/interface.ts';
import { tempDir } from '../runtime/storage/test-support.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WRITERS = Number(process.env.BENCH_WRITERS ?? 100);
const VALUE_BYTES = 1024;

interface Backend {
  readonly name: string;
  open(): { store: Storage; cleanup(): void };
}

const backends: Backend[] = [
  { name: 'memory', open: () => ({ store: new MemoryStorage({ autoCompaction: false }), cleanup: () => undefined }) },
  ...(['FULL', 'NORMAL'] as const).map(
    (synchronous): Backend => ({
      name: `sqlite ${synchronous}`,
      open: () => {
        const dir = tempDir('bench');
        return { store: new SqliteStorage({ dataDir: dir, autoCompaction: false, synchronous }), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
      },
    }),
  ),
];

interface Sample {
  perSec: number;
  mainUsPerWrite: number;
  cpuUsPerWrite: number;
  elu: number;
  p50: number;
  p99: number;
}

/** ConfigMap-like JSON values of about VALUE_BYTES, made up front so the writers cost little. */
const VALUES = Array.from({ length: 1024 }, (_, i) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `v${i}` }, data: { pad: randomBytes(VALUE_BYTES / 2 - 60).toString('hex') } }),
);
/** Random key names: a random prefix per run and a counter (random order in the index, no repeats). */
const NAMES = Array.from({ length: 4096 }, () => randomBytes(5).toString('hex'));
let counter = 0;

async function run(b: Backend): Promise<Sample> {
  const { store, cleanup } = b.open();
  // Warm up (worker start, statement compilation, JIT) outside the measured window.
  await Promise.all(Array.from({ length: WRITERS }, (_, i) => store.create(`/core/configmaps/warm/w${i}`, VALUES[i])));
  const latencies: number[] = [];
  // A deadline, not a timer: the memory backend settles in microtasks, so a timer would never fire.
  const deadline = performance.now() + SECONDS * 1000;
  const elu0 = performance.eventLoopUtilization();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const writer = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const n = counter++;
      const started = performance.now();
      await store.create(`/core/configmaps/ns${n % 8}/${NAMES[n % NAMES.length]}-${n}`, VALUES[n % VALUES.length]);
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, () => writer()));
  const ms = performance.now() - t0;
  const elu = performance.eventLoopUtilization(elu0);
  const cpu = process.cpuUsage(cpu0);
  await store.close();
  cleanup();
  const n = latencies.length;
  latencies.sort((x, y) => x - y);
  return {
    perSec: (n / ms) * 1000,
    mainUsPerWrite: (elu.active * 1000) / n,
    cpuUsPerWrite: (cpu.user + cpu.system) / n,
    elu: elu.utilization,
    p50: latencies[Math.floor(n / 2)],
    p99: latencies[Math.floor(n * 0.99)],
  };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const samples = new Map<string, Sample[]>(backends.map((b) => [b.name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const b of backends) samples.get(b.name)?.push(await run(b));
}

console.log(`storage creates: ${WRITERS} concurrent writers, random keys, ~${VALUE_BYTES} B values, ${SECONDS} s x ${ROUNDS} rounds interleaved; medians`);
console.log(
  ['backend'.padEnd(14), 'writes/s'.padStart(9), 'vs memory'.padStart(10), 'main µs/write'.padStart(14), 'main ELU'.padStart(9), 'process CPU µs/write'.padStart(21), 'p50 ms'.padStart(7), 'p99 ms'.padStart(7)].join(' '),
);
// The memory backend (no disk, no SQL) is the baseline every durable backend is compared with.
const memoryRate = median((samples.get('memory') ?? []).map((s) => s.perSec));
for (const b of backends) {
  const xs = samples.get(b.name) ?? [];
  const m = (f: (s: Sample) => number): number => median(xs.map(f));
  console.log(
    [
      b.name.padEnd(14),
      m((s) => s.perSec).toFixed(0).padStart(9),
      (m((s) => s.perSec) / memoryRate).toFixed(2).padStart(10),
      m((s) => s.mainUsPerWrite).toFixed(1).padStart(14),
      m((s) => s.elu).toFixed(2).padStart(9),
      m((s) => s.cpuUsPerWrite).toFixed(1).padStart(21),
      m((s) => s.p50).toFixed(1).padStart(7),
      m((s) => s.p99).toFixed(1).padStart(7),
    ].join(' '),
  );
}
