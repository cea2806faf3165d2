// A validation run spread over worker threads (`clusterspec validate --jobs N`), as kubeconform's -n:
// the inputs are cut into chunks of about CHUNK_BYTES; the main thread validates chunks itself and
// hands others to up to N-1 workers as each becomes ready, and the results are put back in the order
// of the inputs, so that the report is the same whatever N. Workers start only for enough work
// (MIN_BYTES_PER_WORKER each): starting one costs about what validating a few megabytes does.
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { Input } from './inputs.ts';
import type { RunReport } from './findings.ts';
import { Validation, type ChunkResult, type RunOptions } from './run.ts';
import { workerModuleUrl, type ChunkRequest, type WorkerMessage, type WorkerSetup } from './worker.ts';

export interface ParallelOptions {
  /** Threads in all, the main one included; 1 validates in this thread alone. */
  jobs: number;
  /** The module (URL) that exports the validators, and the export's name: workers import it (runtime/ never imports out/). */
  validatorsModule: { url: string; exportName: string };
  /** Bytes of manifests each worker needs to be worth starting (default MIN_BYTES_PER_WORKER; tests lower it). */
  minBytesPerWorker?: number;
  /** Bytes of manifests per chunk (default CHUNK_BYTES). */
  chunkBytes?: number;
  /** This thread only hands chunks out while a worker lives (tests: every chunk crosses a thread). */
  workersOnly?: boolean;
}

export const CHUNK_BYTES = 256 * 1024;
/** A worker takes about 0.2 s of a processor to start from the compiled package (about 1 s through tsx), then runs with a cold JIT: as much as validating a few megabytes. */
export const MIN_BYTES_PER_WORKER = 4 * 1024 * 1024;

/** A worker thread imports this (CommonJS, evaluated): tsx first when the sources run as TypeScript, then worker.ts. */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
(async () => {
  if (workerData.tsx) (await import(workerData.tsx)).register();
  await (await import(workerData.entry)).serveWorker();
})().catch((e) => setImmediate(() => { throw e; }));
`;

/** Inputs in order, cut where a chunk reaches CHUNK_BYTES (a file over it is a chunk of its own). */
export function chunksOf(inputs: readonly Input[], chunkBytes = CHUNK_BYTES): Input[][] {
  const chunks: Input[][] = [];
  let current: Input[] = [];
  let bytes = 0;
  for (const input of inputs) {
    current.push(input);
    bytes += input.kind === 'file' ? input.size : 0;
    if (bytes >= chunkBytes) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
  }
  if (current.length) chunks.push(current);
  return chunks;
}

/** How many workers a run starts: none for standard input (read once, here) or for too little work. */
export function workersFor(jobs: number, inputs: readonly Input[], opts: Pick<RunOptions, 'oldFile' | 'maxFileBytes'>, minBytesPerWorker = MIN_BYTES_PER_WORKER): number {
  if (jobs <= 1 || opts.oldFile === '-' || inputs.some((i) => i.kind === 'stdin')) return 0;
  const bytes = inputs.reduce((n, i) => n + (i.kind === 'file' && i.size <= opts.maxFileBytes ? i.size : 0), 0);
  return Math.max(0, Math.min(jobs - 1, Math.floor(bytes / minBytesPerWorker)));
}

/**
 * A module's URL without a query: under tsx's tsImport (bin/clusterspec.mjs) module URLs carry a
 * `?tsx-namespace=` of the main thread's loader, which a worker (with a loader of its own) must not see.
 */
function moduleFile(url: string): string {
  const u = new URL(url);
  u.search = '';
  u.hash = '';
  return u.href;
}

interface PoolWorker {
  thread: Worker;
  /** It has loaded the validators and takes chunks. */
  ready: boolean;
  /** The chunk it is validating. */
  busy?: number;
  gone: boolean;
}

/** As runValidation, with up to jobs-1 worker threads beside this one; the same report whatever the number. */
export async function runValidationParallel(opts: RunOptions, parallel: ParallelOptions): Promise<RunReport> {
  const started = performance.now();
  const validation = new Validation(opts);
  validation.prepare();
  const inputs = validation.inputs();
  const count = workersFor(parallel.jobs, inputs, opts, parallel.minBytesPerWorker);
  if (count === 0) {
    validation.validateInputs(inputs);
    return { ...validation.report(started), threads: 1 };
  }
  const chunks = chunksOf(inputs, parallel.chunkBytes);
  /** Workers that validated a chunk, and whether this thread did. */
  const helped = new Set<PoolWorker>();
  let mainHelped = false;
  const done: Array<ChunkResult | undefined> = chunks.map(() => undefined);
  let finished = 0;
  const finish = (chunk: number, result: ChunkResult): void => {
    if (done[chunk] === undefined) finished++;
    done[chunk] = result;
  };
  /** Chunks of workers that failed, to be validated again (first, by whichever thread is free). */
  const orphans: number[] = [];
  let next = 0;
  const take = (): number | undefined => orphans.pop() ?? (next < chunks.length ? next++ : undefined);
  let wake: (() => void) | undefined;
  const notify = (): void => {
    wake?.();
    wake = undefined;
  };
  const give = (w: PoolWorker): void => {
    w.busy = w.gone ? undefined : take();
    if (w.busy !== undefined) w.thread.postMessage({ chunk: w.busy, inputs: chunks[w.busy] } satisfies ChunkRequest);
  };
  const lose = (w: PoolWorker): void => {
    if (w.gone) return;
    w.gone = true;
    if (w.busy !== undefined) orphans.push(w.busy);
    w.busy = undefined;
    for (const other of pool) if (other.ready && !other.gone && other.busy === undefined) give(other);
    notify();
  };
  const setup: WorkerSetup = {
    validatorsModule: { ...parallel.validatorsModule, url: moduleFile(parallel.validatorsModule.url) },
    options: { crdDirs: opts.crdDirs, strict: opts.strict, maxFileBytes: opts.maxFileBytes, ...(opts.oldFile !== undefined ? { oldFile: opts.oldFile } : {}), ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}) },
  };
  const entry = moduleFile(workerModuleUrl);
  const tsx = entry.endsWith('.ts') ? import.meta.resolve('tsx/esm/api') : undefined;
  const pool: PoolWorker[] = [];
  for (let i = 0; i < count; i++) {
    const w: PoolWorker = { thread: new Worker(BOOTSTRAP, { eval: true, execArgv: [], workerData: { entry, tsx, ...setup } }), ready: false, gone: false };
    w.thread.on('message', (m: WorkerMessage) => {
      w.ready = true;
      if ('chunk' in m) {
        helped.add(w);
        finish(m.chunk, { files: m.files, results: m.results, internalError: m.internalError });
        notify();
      }
      give(w);
    });
    // A worker that cannot start or fails leaves its chunk to this thread; the run goes on.
    w.thread.on('error', () => lose(w));
    w.thread.on('exit', () => lose(w));
    pool.push(w);
  }
  try {
    for (;;) {
      const share = !parallel.workersOnly || pool.every((w) => w.gone);
      const mine = share ? take() : undefined;
      if (mine !== undefined) {
        mainHelped = true;
        finish(mine, validation.validateChunk(chunks[mine]));
        // Lets the workers' messages in between two chunks of this thread.
        await new Promise<void>((resolve) => setImmediate(resolve));
        continue;
      }
      if (finished === chunks.length) break;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    for (const w of pool) {
      w.gone = true;
      void w.thread.terminate();
    }
  }
  for (const chunk of done) validation.addChunk(chunk!);
  return { ...validation.report(started), threads: (mainHelped ? 1 : 0) + helped.size };
}
