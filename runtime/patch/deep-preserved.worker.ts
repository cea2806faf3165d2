// Runs in a worker thread with the server's V8 stack (deep-preserved.test.ts): every server-side
// apply and managed-fields step over a custom resource whose preserved field nests `depth` levels.
// Posts one line per step: "<step>: ok" or "<step>: <error>".

import { parentPort, workerData } from 'node:worker_threads';
import { apply } from './apply.ts';
import { updateManagedFields } from './managed-fields.ts';
import { compare, merge, toFieldSet } from './typed.ts';

/** `{a: {a: ... leaf}}` under spec, `depth` levels (untyped, as preserved fields are). */
function nested(depth: number, leaf: unknown): Record<string, unknown> {
  let o: unknown = leaf;
  for (let i = 0; i < depth; i++) o = { a: o };
  return { apiVersion: 'v1', kind: 'X', metadata: { name: 'x' }, spec: o };
}

const depth = (workerData as { depth: number }).depth;
const now = '2026-01-01T00:00:00Z';
const as = (manager: string) => ({ manager, apiVersion: 'v1', now });
const applyAs = (manager: string) => ({ manager, force: false, apiVersion: 'v1', now });

const steps: [string, () => unknown][] = [
  ['merge', () => merge(nested(depth, 1), nested(depth, 2), undefined, {})],
  ['compare', () => compare(nested(depth, 1), nested(depth, 2), undefined, {})],
  ['toFieldSet', () => toFieldSet(nested(depth, 1), undefined, {})],
  ['managed fields of a create, then an update', () => updateManagedFields(updateManagedFields(undefined, nested(depth, 1), as('a'), undefined, {}), nested(depth, 2), as('b'), undefined, {})],
  ['apply (create)', () => apply(undefined, nested(depth, 1), applyAs('m'), undefined, {})],
  ['apply the same again, then prune it away', () => {
    const first = apply(undefined, nested(depth, 1), applyAs('m'), undefined, {});
    const again = apply(first.object, nested(depth, 1), applyAs('m'), undefined, {});
    return apply(again.object, { apiVersion: 'v1', kind: 'X', metadata: { name: 'x' }, spec: { b: 1 } }, applyAs('m'), undefined, {});
  }],
];

parentPort?.postMessage(
  steps.map(([name, run]) => {
    try {
      run();
      return `${name}: ok`;
    } catch (e) {
      return `${name}: ${e instanceof Error ? e.message : String(e)}`;
    }
  }),
);
