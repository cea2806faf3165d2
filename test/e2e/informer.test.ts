// A real client-go-style informer (@kubernetes/client-node 1.4, makeInformer = ListWatch) against
// a real server process with sqlite, and with etcd: it lists, watches, and its cache stays equal to the server's
// list across creates, updates and deletes, and across dropped connections (the server stopped,
// changed behind the informer's back, and restarted on the same port and data directory). Every
// wait is bounded.

import { CoreV1Api, KubeConfig, makeInformer, type Informer, type ObjectCache, type V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableBackends, ServerBackend } from './backend.ts';
import { eventually, TestServer } from './harness.ts';

const NS = 'informed';
const CM = `/api/v1/namespaces/${NS}/configmaps`;

describe.each(availableBackends('informer', ['sqlite', 'etcd'] as const))('informer (client-node 1.4) on ConfigMaps, %s', (storage) => {
  const backend = new ServerBackend(storage);
  let s: TestServer;
  let dataDir: string;
  let port: number;
  let informer: Informer<V1ConfigMap> & ObjectCache<V1ConfigMap>;
  let lists = 0;
  let autoRestart = true;
  const errors: unknown[] = [];
  const seen = { add: 0, update: 0, delete: 0 };
  const timers = new Set<NodeJS.Timeout>();

  /** Start a server on the same port and data directory as the first one. */
  const restart = async (): Promise<void> => {
    s = await backend.start(dataDir, ['--port', String(port)], true);
  };

  /** name → resourceVersion of the informer's cache. */
  const cacheState = (): Map<string, string> =>
    new Map(informer.list(NS).map((o) => [o.metadata?.name ?? '', o.metadata?.resourceVersion ?? '']));

  /** name → resourceVersion of the server's list. */
  const serverState = async (): Promise<Map<string, string>> => {
    const r = await s.get(CM);
    expect(r.status).toBe(200);
    return new Map((r.json.items as { metadata: { name: string; resourceVersion: string } }[]).map((i) => [i.metadata.name, i.metadata.resourceVersion]));
  };

  /** Waits (bounded) until the cache equals the server's list, names and resourceVersions. */
  const converged = async (ms = 10_000): Promise<Map<string, string>> => {
    let last: { cache: Map<string, string>; server: Map<string, string> } | undefined;
    try {
      return await eventually(async () => {
        const server = await serverState();
        const cache = cacheState();
        last = { cache, server };
        return sameState(cache, server) ? server : undefined;
      }, ms);
    } catch (e) {
      throw new Error(`informer cache did not converge: cache ${JSON.stringify([...(last?.cache ?? [])])} server ${JSON.stringify([...(last?.server ?? [])])}; errors ${errors.map(String).join('; ')}`, { cause: e });
    }
  };

  beforeAll(async () => {
    s = await backend.start();
    dataDir = s.dataDir;
    port = s.port;
    expect((await s.post('/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
    for (let i = 0; i < 5; i++) expect((await s.post(CM, { metadata: { name: `pre-${i}` }, data: { i: String(i) } })).status).toBe(201);

    const kc = new KubeConfig();
    kc.loadFromFile(s.kubeconfig);
    const core = kc.makeApiClient(CoreV1Api);
    informer = makeInformer(kc, CM, () => {
      lists++;
      return core.listNamespacedConfigMap({ namespace: NS });
    });
    informer.on('add', () => seen.add++);
    informer.on('update', () => seen.update++);
    informer.on('delete', () => seen.delete++);
    // client-node's informer stops on a watch error; restarting it (after a pause) is the caller's
    // job. It keeps its resourceVersion, so it resumes the watch where it was.
    informer.on('error', (e) => {
      errors.push(e);
      if (!autoRestart) return;
      const t = setTimeout(() => {
        timers.delete(t);
        void informer.start().catch((err: unknown) => errors.push(err));
      }, 250);
      timers.add(t);
    });
  });

  afterAll(async () => {
    autoRestart = false;
    for (const t of timers) clearTimeout(t);
    await informer?.stop();
    await s?.stop();
    await backend.close();
  });

  it('lists the existing objects on start', async () => {
    await informer.start();
    expect(lists).toBe(1);
    expect([...cacheState().keys()].sort()).toEqual(['pre-0', 'pre-1', 'pre-2', 'pre-3', 'pre-4']);
    expect(seen.add).toBe(5);
    await converged();
  });

  it('follows creates, updates and deletes through the watch', async () => {
    for (let i = 0; i < 10; i++) expect((await s.post(CM, { metadata: { name: `live-${i}` }, data: { v: '1' } })).status).toBe(201);
    for (let i = 0; i < 5; i++) {
      const cur = (await s.get(`${CM}/live-${i}`)).json;
      expect((await s.put(`${CM}/live-${i}`, { ...cur, data: { v: '2' } })).status).toBe(200);
    }
    for (const n of ['pre-0', 'live-9', 'live-8']) expect((await s.delete(`${CM}/${n}`)).status).toBe(200);
    const state = await converged();
    expect(state.size).toBe(5 - 1 + 10 - 2);
    expect(informer.get('live-0', NS)?.data).toEqual({ v: '2' });
    expect(informer.get('live-7', NS)?.data).toEqual({ v: '1' });
    expect(informer.get('pre-0', NS)).toBeUndefined();
    expect(seen).toMatchObject({ add: 15, update: 5, delete: 3 });
    // Only the watch did this: no relist.
    expect(lists).toBe(1);
  });

  it('resumes from its resourceVersion after the server stops, changes behind its back, and restarts', async () => {
    autoRestart = false;
    const errorsBefore = errors.length;
    await s.stop(false); // SIGTERM: the server closes every connection, the watch among them
    // The informer notices (its re-watch is refused) and reports an error.
    await eventually(async () => errors.length > errorsBefore, 10_000, 50);
    await restart();
    // Changes the informer has not seen: create, update, delete, and delete + re-create of one name.
    expect((await s.post(CM, { metadata: { name: 'gap-new' }, data: { v: 'gap' } })).status).toBe(201);
    const cur = (await s.get(`${CM}/live-1`)).json;
    expect((await s.put(`${CM}/live-1`, { ...cur, data: { v: 'gap' } })).status).toBe(200);
    expect((await s.delete(`${CM}/live-2`)).status).toBe(200);
    expect((await s.delete(`${CM}/pre-1`)).status).toBe(200);
    expect((await s.post(CM, { metadata: { name: 'pre-1' }, data: { v: 'recreated' } })).status).toBe(201);
    autoRestart = true;
    await informer.start();
    await converged();
    expect(informer.get('gap-new', NS)?.data).toEqual({ v: 'gap' });
    expect(informer.get('live-1', NS)?.data).toEqual({ v: 'gap' });
    expect(informer.get('live-2', NS)).toBeUndefined();
    expect(informer.get('pre-1', NS)?.data).toEqual({ v: 'recreated' });
    // The watch resumed from the informer's resourceVersion (replayed from the sqlite log or etcd's history), no relist.
    expect(lists).toBe(1);
  });

  it('recovers by itself from kill -9 of the server while writes continue', async () => {
    const errorsBefore = errors.length;
    await s.kill();
    await eventually(async () => errors.length > errorsBefore, 10_000, 50);
    await restart();
    // Writes race the informer's own reconnect (every 250 ms).
    for (let i = 0; i < 5; i++) expect((await s.post(CM, { metadata: { name: `after-kill-${i}` }, data: { v: '1' } })).status).toBe(201);
    const cur = (await s.get(`${CM}/live-3`)).json;
    expect((await s.put(`${CM}/live-3`, { ...cur, data: { v: 'after-kill' } })).status).toBe(200);
    expect((await s.delete(`${CM}/live-4`)).status).toBe(200);
    await converged();
    expect(informer.get('live-3', NS)?.data).toEqual({ v: 'after-kill' });
    expect(informer.get('after-kill-4', NS)).toBeDefined();
    expect(informer.get('live-4', NS)).toBeUndefined();
    // And it keeps following live changes on the new connection.
    expect((await s.post(CM, { metadata: { name: 'final' }, data: { v: '1' } })).status).toBe(201);
    await converged();
    expect(informer.get('final', NS)).toBeDefined();
    expect(lists).toBe(1);
  });
});

function sameState(a: Map<string, string>, b: Map<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}
