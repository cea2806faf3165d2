// The /finalize subresource of Namespace (upstream's FinalizeREST and namespaceFinalizeStrategy) and
// when a Terminating namespace goes (ShouldDeleteNamespaceDuringUpdate), first without the
// namespace controller, so each write's own effect shows; then with it, a namespace a foreign
// finalizer keeps Terminating until /finalize clears it.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { namespaceResource } from '../../../out/routes/namespace.ts';
import * as validators from '../../../out/validators/index.ts';
import { metaOf, type Obj } from '../../api/object.ts';
import { ApiError } from '../../errors/api-error.ts';
import { lazyValidator } from '../../http/bootstrap.ts';
import { MemoryStorage } from '../../storage/memory.ts';
import { finalizeNamespace } from '../namespace-controller.ts';
import { Registry } from '../registry.ts';
import type { Store } from '../store.ts';
import { NAMESPACE_FINALIZER, NAMESPACE_NAME_LABEL } from './namespace.ts';

let storage: MemoryStorage;
let registry: Registry;
let nss: Store;

beforeEach(async () => {
  storage = new MemoryStorage({ autoCompaction: false });
  registry = new Registry(storage, [{ descriptor: namespaceResource, validator: lazyValidator(() => validators.Namespace.createValidator()) }], {});
  await registry.init();
  nss = registry.storeFor('', 'namespaces') as Store;
});
afterEach(async () => {
  registry.stop();
  await storage.close();
});

const gone = async (name: string): Promise<boolean> =>
  nss.get(undefined, name).then(() => false, (e: unknown) => e instanceof ApiError && e.code === 404);

async function create(name: string, spec: Obj = {}, metadata: Obj = {}): Promise<Obj> {
  return (await nss.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...metadata }, spec })).object;
}

/** A /finalize PUT of the stored object with `change` applied (as `kubectl replace --raw .../finalize` sends it). */
async function finalize(name: string, change: (ns: Obj) => void): Promise<Obj> {
  const body = structuredClone(await nss.get(undefined, name));
  change(body);
  return (await nss.update(undefined, name, body, { subresource: 'finalize' })).object;
}

interface FinalizeCase {
  name: string;
  /** What the /finalize body changes. */
  change: (ns: Obj) => void;
  spec: Obj;
  status: Obj;
  labels: Record<string, string>;
}

const finalizeCases: FinalizeCase[] = [
  {
    name: 'spec.finalizers come from the body (the cluster finalizer may go)',
    change: (ns) => ((ns.spec as Obj).finalizers = ['example.com/a']),
    spec: { finalizers: ['example.com/a'] },
    status: { phase: 'Active' },
    labels: { [NAMESPACE_NAME_LABEL]: 'f' },
  },
  {
    name: 'status in the body is ignored (the stored one is kept)',
    change: (ns) => ((ns.status as Obj).phase = 'Terminating'),
    spec: { finalizers: [NAMESPACE_FINALIZER] },
    status: { phase: 'Active' },
    labels: { [NAMESPACE_NAME_LABEL]: 'f' },
  },
  {
    name: 'metadata comes from the body too, the name label kept right',
    change: (ns) => ((ns.metadata as Obj).labels = { team: 'x', [NAMESPACE_NAME_LABEL]: 'other' }),
    spec: { finalizers: [NAMESPACE_FINALIZER] },
    status: { phase: 'Active' },
    labels: { team: 'x', [NAMESPACE_NAME_LABEL]: 'f' },
  },
];

describe('PUT /finalize', () => {
  it.each(finalizeCases)('$name', async ({ change, spec, status, labels }) => {
    await create('f');
    const written = await finalize('f', change);
    expect(written.spec).toEqual(spec);
    expect(written.status).toEqual(status);
    expect(metaOf(written).labels).toEqual(labels);
    expect(await nss.get(undefined, 'f')).toMatchObject({ spec, status });
  });

  it('refuses a finalizer name that is neither standard nor qualified, as the main validation does', async () => {
    await create('bad');
    const err = await finalize('bad', (ns) => ((ns.spec as Obj).finalizers = ['nope'])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(422);
    expect((err as ApiError).message).toContain('spec.finalizers[0]: Invalid value: "nope": name is neither a standard finalizer name nor is it fully qualified');
  });

  it('is refused for a namespace that does not exist (never creates)', async () => {
    const err = await nss.update(undefined, 'missing', { metadata: { name: 'missing' }, spec: { finalizers: [] } }, { subresource: 'finalize' }).catch((e: unknown) => e);
    expect((err as ApiError).code).toBe(404);
  });
});

describe('a Terminating namespace goes with the write that leaves no finalizer at all', () => {
  it('stays while spec.finalizers remain, whatever an update of the main resource does', async () => {
    await create('t');
    await nss.delete(undefined, 't');
    const relabelled = structuredClone(await nss.get(undefined, 't'));
    (relabelled.metadata as Obj).labels = { x: 'y' };
    await nss.update(undefined, 't', relabelled);
    expect(await gone('t')).toBe(false);
    expect((await nss.get(undefined, 't')).spec).toEqual({ finalizers: [NAMESPACE_FINALIZER] });
  });

  it('goes when /finalize empties spec.finalizers', async () => {
    await create('t');
    const deleted = await nss.delete(undefined, 't');
    expect(deleted).toMatchObject({ kind: 'object', deferred: true });
    await finalize('t', (ns) => ((ns.spec as Obj).finalizers = []));
    expect(await gone('t')).toBe(true);
  });

  it('with metadata.finalizers, stays until the last of those goes too', async () => {
    await create('t', {}, { finalizers: ['example.com/meta'] });
    await nss.delete(undefined, 't');
    await finalize('t', (ns) => ((ns.spec as Obj).finalizers = []));
    expect(await gone('t')).toBe(false);
    const cleared = structuredClone(await nss.get(undefined, 't'));
    (cleared.metadata as Obj).finalizers = [];
    await nss.update(undefined, 't', cleared);
    expect(await gone('t')).toBe(true);
  });

  it('finalized while Active: the first DELETE marks it, a second one removes it (upstream)', async () => {
    await create('t');
    await finalize('t', (ns) => ((ns.spec as Obj).finalizers = []));
    expect(await nss.delete(undefined, 't')).toMatchObject({ kind: 'object', deferred: true });
    expect(await gone('t')).toBe(false);
    expect(await nss.delete(undefined, 't')).toMatchObject({ kind: 'object', deferred: false });
    expect(await gone('t')).toBe(true);
  });
});

describe('the namespace controller finalizes through /finalize', () => {
  it('takes out only the cluster finalizer: a foreign one keeps the namespace Terminating until /finalize clears it', async () => {
    await create('stuck', { finalizers: ['example.com/b', 'example.com/a'] });
    await nss.delete(undefined, 'stuck');
    await finalizeNamespace(registry, nss, 'stuck');
    const left = await nss.get(undefined, 'stuck');
    expect(left.spec).toEqual({ finalizers: ['example.com/a', 'example.com/b'] });
    expect(left.status).toEqual({ phase: 'Terminating' });
    // a second pass changes nothing more
    await finalizeNamespace(registry, nss, 'stuck');
    expect((await nss.get(undefined, 'stuck')).spec).toEqual({ finalizers: ['example.com/a', 'example.com/b'] });
    await finalize('stuck', (ns) => ((ns.spec as Obj).finalizers = []));
    expect(await gone('stuck')).toBe(true);
  });

  it('removes a namespace that has only the cluster finalizer', async () => {
    await create('plain');
    await nss.delete(undefined, 'plain');
    await finalizeNamespace(registry, nss, 'plain');
    expect(await gone('plain')).toBe(true);
  });

  it('leaves an Active namespace alone', async () => {
    await create('active');
    await finalizeNamespace(registry, nss, 'active');
    expect((await nss.get(undefined, 'active')).spec).toEqual({ finalizers: [NAMESPACE_FINALIZER] });
  });
});
