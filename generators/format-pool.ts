// Formats generated TypeScript with prettier in a worker thread, so that formatting (the largest
// share of a cold generation's CPU) runs beside the generators instead of after them; the types are
// compiled there too (json-schema-to-typescript, which loads prettier again where it runs).
// The output is prettier's, the same whichever worker formats a file.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { JSONSchema, Options as TypesOptions } from 'json-schema-to-typescript';

/** The options of every generated TypeScript file of out/. */
export const PRETTIER_OPTIONS = { printWidth: 120, singleQuote: true, trailingComma: 'all', parser: 'babel-ts' } as const;

/**
 * The worker's source, evaluated as a script: a file beside this module would not follow it into the
 * compiled toolchain package (generators/packages/build.ts copies what is imported). babel-ts gives
 * the same output as prettier's typescript parser on every file of out/ (test/generators/format.test.ts)
 * at about three quarters of the cost.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const loaded = import(workerData.prettier);
parentPort.on('message', async ({ id, content, types }) => {
  try {
    const prettier = await loaded;
    const code = types ? (await require(workerData.typesCompiler).compile(types.schema, types.name, types.options)) + types.suffix : content;
    parentPort.postMessage({ id, content: await prettier.format(code, workerData.options) });
  } catch (err) {
    parentPort.postMessage({ id, error: err instanceof Error ? err.stack ?? err.message : String(err) });
  }
});
`;

/** What json-schema-to-typescript compiles, and the code to append before formatting. */
export interface TypesJob {
  schema: JSONSchema;
  name: string;
  options: Partial<TypesOptions>;
  suffix: string;
}

interface Reply {
  id: number;
  content?: string;
  error?: string;
}

interface Pending {
  resolve: (content: string) => void;
  reject: (err: Error) => void;
  worker: PoolWorker;
  size: number;
}

interface PoolWorker {
  thread: Worker;
  /** Characters sent and not yet answered: the next file goes to the least loaded worker. */
  queued: number;
  inFlight: number;
}

export class FormatError extends Error {}

/** Outputs of earlier runs by a key of their whole input (format-cache.ts): a hit is not sent to the worker. */
export interface FormatMemo {
  keyOf(input: string): string;
  get(key: string): string | undefined;
  set(key: string, output: string): void;
}

class FormatPool {
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private memo: FormatMemo | undefined;

  /** Undefined until the first file is sent, or until start(). */
  private workers: PoolWorker[] | undefined;

  constructor(private readonly size: number) {}

  /** Starts the workers (loading prettier) if they are not running: early, so that they load while the generators do. */
  start(): void {
    if (this.workers) return;
    const workerData = {
      prettier: import.meta.resolve('prettier'),
      typesCompiler: createRequire(import.meta.url).resolve('json-schema-to-typescript'),
      options: PRETTIER_OPTIONS,
    };
    this.workers = Array.from({ length: this.size }, () => {
      // No execArgv: a worker needs neither tsx nor the parent's loader hooks, only prettier.
      const w: PoolWorker = { thread: new Worker(WORKER_SOURCE, { eval: true, workerData, execArgv: [] }), queued: 0, inFlight: 0 };
      w.thread.on('message', (reply: Reply) => this.settle(reply));
      w.thread.on('error', (err) => this.retire(w, err));
      w.thread.on('exit', (code) => this.retire(w, new FormatError(`a format worker stopped (exit code ${code})`)));
      w.thread.unref(); // an idle pool never keeps the process alive
      return w;
    });
  }

  /** Outputs are looked up in `memo` first and recorded there (npm run generate with its cache); undefined stops that. */
  useMemo(memo: FormatMemo | undefined): void {
    this.memo = memo;
  }

  /** Whether a memo may answer: then the workers start on the first miss rather than beforehand. */
  get remembers(): boolean {
    return this.memo !== undefined;
  }

  format(content: string): Promise<string> {
    return this.remembered(`format\n${content}`, () => this.send({ content }, content.length));
  }

  /** The types json-schema-to-typescript compiles from `schema`, with `suffix` appended, formatted. */
  compileTypes(job: TypesJob): Promise<string> {
    const input = JSON.stringify(job);
    return this.remembered(`types\n${input}`, () => this.send({ types: job }, input.length));
  }

  private remembered(input: string, run: () => Promise<string>): Promise<string> {
    const memo = this.memo;
    if (!memo) return run();
    const key = memo.keyOf(input);
    const hit = memo.get(key);
    if (hit !== undefined) return Promise.resolve(hit);
    return run().then((output) => {
      memo.set(key, output);
      return output;
    });
  }

  private send(message: { content: string } | { types: TypesJob }, size: number): Promise<string> {
    this.start();
    const workers = this.workers ?? [];
    if (!workers.length) return Promise.reject(new FormatError('no format worker is running'));
    const worker = workers.reduce((a, b) => (b.queued < a.queued ? b : a));
    const id = this.nextId++;
    worker.queued += size;
    if (worker.inFlight++ === 0) worker.thread.ref();
    return new Promise<string>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, worker, size });
      worker.thread.postMessage({ id, ...message });
    });
  }

  private settle(reply: Reply): void {
    const job = this.pending.get(reply.id);
    if (!job) return;
    this.pending.delete(reply.id);
    this.release(job);
    if (reply.error !== undefined) job.reject(new FormatError(reply.error));
    else job.resolve(reply.content ?? '');
  }

  private release(job: Pending): void {
    job.worker.queued -= job.size;
    if (--job.worker.inFlight === 0) job.worker.thread.unref();
  }

  /** A worker that failed or stopped takes no more files; the files it had fail. */
  private retire(worker: PoolWorker, err: Error): void {
    const at = this.workers?.indexOf(worker) ?? -1;
    if (at >= 0) this.workers?.splice(at, 1);
    for (const [id, job] of this.pending) {
      if (job.worker !== worker) continue;
      this.pending.delete(id);
      this.release(job);
      job.reject(err);
    }
  }
}

let pool: FormatPool | undefined;

/**
 * One worker: with routes and data written in prettier's form, the code left to format (validators,
 * types) takes about as long as the generators on the main thread; a second worker cost more than it
 * saved in cold runs on this 2-core machine (about 0.5 s more CPU, no shorter wall time, measured).
 */
const WORKERS = 1;

/** The process's pool; its workers start on the first file sent, or on start() (early, so that prettier loads while the generators do). */
export function formatPool(): FormatPool {
  pool ??= new FormatPool(WORKERS);
  return pool;
}
