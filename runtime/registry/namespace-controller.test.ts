// The namespace controller in process, over a server assembled from out/ with memory storage: a
// namespace left Terminating in storage (as a replica killed right after accepting the DELETE leaves
// it) is finished by the controller, contents first; a namespace not Terminating is left alone.

import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LeaderElector } from '../controller/leader-election.ts';
import { ApiError } from '../errors/api-error.ts';
import { TokenAuthenticator } from '../http/auth.ts';
import { buildApiServer, loadGenerated, type BuiltServer } from '../http/bootstrap.ts';
import { openStorage, type Storage } from '../storage/index.ts';
import { NamespaceController } from './namespace-controller.ts';
import { meta, nowTimestamp, type Obj } from '../api/object.ts';
import type { Store } from './store.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');

let storage: Storage;
let built: BuiltServer;
let controller: NamespaceController | undefined;

function store(group: string, plural: string): Store {
  const s = built.registry.storeFor(group, plural);
  if (!s) throw new Error(`no store ${group}/${plural}`);
  return s;
}

async function exists(s: Store, ns: string | undefined, name: string): Promise<boolean> {
  try {
    await s.get(ns, name);
    return true;
  } catch (e) {
    if (e instanceof ApiError && e.code === 404) return false;
    throw e;
  }
}

/** Marks the namespace Terminating in storage without the strategy's own clean-up (what a replica killed mid-DELETE leaves). */
async function leaveTerminating(name: string): Promise<void> {
  const namespaces = store('', 'namespaces');
  const ns = await namespaces.get(undefined, name);
  meta(ns).deletionTimestamp = nowTimestamp();
  (ns.status as Obj).phase = 'Terminating';
  await namespaces.writeServerUpdate(ns, Number(meta(ns).resourceVersion));
}

beforeAll(async () => {
  const gen = await loadGenerated(join(ROOT, 'out'));
  storage = openStorage({ kind: 'memory' });
  // An elector that never leads: the controller under test is started by hand.
  const idle: LeaderElector = { identity: 'idle', run: async () => undefined, isLeader: () => false, controller: () => undefined, stop: async () => undefined };
  built = await buildApiServer(gen, { storage, authenticator: TokenAuthenticator.fromCsv(''), admission: false, customResources: false, storageVersionMigration: false, leaderElector: idle });
});
afterAll(async () => {
  controller?.stop();
  await built?.stop();
  await storage?.close();
});

describe('NamespaceController', () => {
  it('finishes namespaces left Terminating (found at start and changed later), and leaves active ones alone', async () => {
    const namespaces = store('', 'namespaces');
    const configmaps = store('', 'configmaps');
    for (const name of ['left-at-start', 'left-later', 'active']) {
      await namespaces.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, {});
      await configmaps.create(name, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { a: 'b' } }, {});
    }
    await leaveTerminating('left-at-start');
    controller = new NamespaceController({ registry: built.registry, log: () => undefined });
    await controller.start();
    await leaveTerminating('left-later');
    const expected: [string, boolean][] = [
      ['left-at-start', false],
      ['left-later', false],
      ['active', true],
    ];
    const deadline = Date.now() + 10_000;
    for (;;) {
      const seen = await Promise.all(expected.map(async ([n]) => [n, await exists(namespaces, undefined, n)] as [string, boolean]));
      if (JSON.stringify(seen) === JSON.stringify(expected) || Date.now() > deadline) {
        expect(seen).toEqual(expected);
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await exists(configmaps, 'left-at-start', 'cm')).toBe(false);
    expect(await exists(configmaps, 'left-later', 'cm')).toBe(false);
    expect(await exists(configmaps, 'active', 'cm')).toBe(true);
  });
});
