// Large YAML bodies are decoded on a worker thread while the request waits, so that the `yaml`
// library's ~1.5 µs per byte (up to ~5 s for a 3 MiB body) never blocks the event loop. readBody
// (body.ts) hands a YAML body of OFFLOAD_MIN_CHARS or more here once it is read; decodeYaml then
// takes the result for that very text (`takeOffloaded`) instead of parsing it again. The request
// thread pays only for receiving the decoded value (a structured clone: ~50 ms for 100,000 keys).
//
// One worker, started on first use and never keeping the process alive; requests queue on it.
// When it cannot start or fails, nothing is kept and decodeYaml decodes on the request thread, as
// it always did. The worker is yaml-decode.worker.ts: compiled (the server package, where this
// module is JavaScript) the .js beside this one, from the TypeScript sources loaded through tsx.

import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { DuplicateField } from './json-structure.ts';
import type { DecodeFailure } from './decode-error.ts';

/** Below this many bytes the request thread decodes (the `yaml` library: ~30 ms at 20,000). */
export const OFFLOAD_MIN_BYTES = 20_000;

/** Results waiting for their decodeYaml call; a body read but never decoded is dropped beyond this many. */
const MAX_WAITING = 8;

export interface OffloadRequest {
  id: number;
  text: string;
}

export type OffloadReply =
  | { id: number; kind: 'decoded'; value: unknown; duplicates: DuplicateField[] }
  | { id: number; kind: 'refused'; format: 'json' | 'yaml'; failure: DecodeFailure; message: string }
  | { id: number; kind: 'failed' };

/** What decodeYaml of a text gave on the worker. */
export type Offloaded = Exclude<OffloadReply, { kind: 'failed' }>;

let worker: Worker | undefined;
/** The worker failed to start or died: the request thread decodes from then on. */
let unavailable = false;
let nextId = 0;
const pending = new Map<number, (reply: OffloadReply) => void>();
const waiting = new Map<string, Offloaded>();

/** The worker's entry: its compiled module beside this one, or (TypeScript sources) a boot that loads it through tsx. */
export function workerEntry(moduleUrl: string): URL {
  if (moduleUrl.endsWith('.js')) return new URL('./yaml-decode.worker.js', moduleUrl);
  // tsx's ESM API loads the TypeScript worker, in the server as in tests and benches
  const tsx = pathToFileURL(createRequire(moduleUrl).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const entry = new URL('./yaml-decode.worker.ts', moduleUrl).href;
  const boot = `const { tsImport } = await import(${JSON.stringify(tsx)}); await tsImport(${JSON.stringify(entry)}, ${JSON.stringify(moduleUrl)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(boot)}`);
}

function startWorker(): Worker {
  // the `yaml` library recurses per level; YAML bodies are pre-scanned to 500 levels, 4 MB of stack is ample
  const w = new Worker(workerEntry(import.meta.url), { resourceLimits: { stackSizeMb: 4 } });
  w.on('message', (reply: OffloadReply) => {
    const resolve = pending.get(reply.id);
    pending.delete(reply.id);
    resolve?.(reply);
  });
  const fail = (): void => {
    unavailable = true;
    worker = undefined;
    for (const [id, resolve] of pending) resolve({ id, kind: 'failed' });
    pending.clear();
  };
  w.on('error', fail);
  w.on('exit', fail);
  // after the listeners: a 'message' listener refs the worker's port again
  w.unref();
  return w;
}

/** Decodes `text` (a YAML body) on the worker and keeps the result for decodeYaml; resolves when done (never rejects). */
export async function offloadYaml(text: string): Promise<void> {
  if (unavailable) return;
  try {
    worker ??= startWorker();
  } catch {
    unavailable = true;
    return;
  }
  const id = nextId++;
  const reply = await new Promise<OffloadReply>((resolve) => {
    pending.set(id, resolve);
    (worker as Worker).postMessage({ id, text } satisfies OffloadRequest);
  });
  if (reply.kind === 'failed') return;
  if (waiting.size >= MAX_WAITING) waiting.delete(waiting.keys().next().value as string);
  waiting.set(text, reply);
}

/** The worker's result for exactly this text, once (undefined when there is none). */
export function takeOffloaded(text: string): Offloaded | undefined {
  if (waiting.size === 0) return undefined;
  const r = waiting.get(text);
  if (r !== undefined) waiting.delete(text);
  return r;
}
