// A worker thread of a validation run spread over threads (parallel.ts): it imports the validators
// from the module the CLI names, reads --crds and --old as the main thread does (their findings are
// the main thread's to report), then validates each chunk of inputs it is sent and sends back its
// files and results.
import { parentPort, workerData } from 'node:worker_threads';
import type { GeneratedValidators } from './checkers.ts';
import type { Input } from './inputs.ts';
import { Validation, type ChunkResult, type RunOptions } from './run.ts';

/** This module, for the thread bootstrap to import (the compiled package's .js, or this .ts under tsx). */
export const workerModuleUrl = import.meta.url;

/** The options of the run that a worker needs: all but the validators (imported by URL) and standard input (never read by a worker). */
export type WorkerRunOptions = Omit<RunOptions, 'validators' | 'readStdin' | 'operands'>;

export interface WorkerSetup {
  /** URL of the module the validators are exported from, and the export's name. */
  validatorsModule: { url: string; exportName: string };
  options: WorkerRunOptions;
}

export interface ChunkRequest {
  chunk: number;
  inputs: Input[];
}

export type WorkerMessage = { ready: true } | ({ chunk: number } & ChunkResult);

/** Runs in the worker thread (called by parallel.ts's bootstrap once this module is imported). */
export async function serveWorker(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('serveWorker runs in a worker thread');
  const setup = workerData as WorkerSetup;
  const mod = (await import(setup.validatorsModule.url)) as Record<string, unknown>;
  const validators = mod[setup.validatorsModule.exportName] as GeneratedValidators | undefined;
  if (!validators) throw new Error(`${setup.validatorsModule.url} exports no ${setup.validatorsModule.exportName}`);
  const validation = new Validation({
    ...setup.options,
    validators,
    operands: [],
    readStdin: () => {
      throw new Error('a worker never reads standard input');
    },
  });
  validation.prepare();
  port.on('message', (req: ChunkRequest) => {
    const message: WorkerMessage = { chunk: req.chunk, ...validation.validateChunk(req.inputs) };
    port.postMessage(message);
  });
  port.postMessage({ ready: true } satisfies WorkerMessage);
}
