// etcd failing under a running server (a real process on a throwaway member): etcd killed and
// started again on the same data while writes go on, and etcd hung (SIGSTOP). Every request is
// answered with a 503/504 Status within its deadline (never a 500, never a hang, never a crash),
// watches end and a client resumes from its last resourceVersion once etcd is back, with no gap,
// and every write acknowledged before, during or after the outage is in etcd.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { etcdSkipReason, startEtcdMember, type EtcdMember } from '../../runtime/storage/etcd-test-member.ts';
import { TestServer, type WatchEventLine } from './harness.ts';

const skip = etcdSkipReason();
if (skip) console.warn(`etcd faults: ${skip}`);

const CM = '/api/v1/namespaces/default/configmaps';
/** The server's deadline for one etcd call (runtime/storage/etcd.ts), plus slack for a loaded machine (the whole suite runs beside this file). */
const CALL_DEADLINE_MS = 10_000;
const ANSWER_BOUND_MS = CALL_DEADLINE_MS + 5000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe.skipIf(skip !== undefined)('etcd failing under a running server', () => {
  let member: EtcdMember;
  let s: TestServer;
  beforeAll(async () => {
    member = await startEtcdMember();
    s = await TestServer.start('memory', undefined, ['--storage', 'etcd', '--etcd-servers', member.endpoint, '--etcd-prefix', '/faults', '--leader-elect-lease-duration', '3s', '--leader-elect-renew-deadline', '2s', '--leader-elect-retry-period', '500ms']);
  }, 30_000);
  afterAll(async () => {
    member?.process.kill('SIGCONT'); // a member left stopped by a failed test still stops
    await s?.stop();
    await member?.stop();
  });

  it('etcd killed and restarted under a write load: 503s while it is down, a watch resumes with no gap, nothing acknowledged is lost', async () => {
    const before = (await s.get(CM)).json.metadata.resourceVersion as string;
    const acknowledged = new Map<string, string>(); // name -> resourceVersion
    const statuses = new Map<number, number>();
    const slow: string[] = [];
    let down = false;
    let deadline = Number.POSITIVE_INFINITY;
    const worker = async (w: number): Promise<void> => {
      for (let n = 0; Date.now() < deadline; n++) {
        const name = `w${w}-${n}`;
        const t0 = Date.now();
        const r = await s.post(CM, { metadata: { name }, data: { n: name } });
        if (Date.now() - t0 > ANSWER_BOUND_MS) slow.push(`${name}: ${Date.now() - t0} ms`);
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
        if (r.status === 201) acknowledged.set(name, r.json.metadata.resourceVersion);
        else {
          expect(r.json, r.text).toMatchObject({ kind: 'Status', status: 'Failure' });
          await sleep(50);
        }
        if (down && r.status !== 201) expect([503, 504]).toContain(r.status);
      }
    };
    const watch = s.watch(`${CM}?watch=1&resourceVersion=${before}`, { ms: 20_000 });
    deadline = Date.now() + 60_000;
    const load = Promise.all([0, 1, 2, 3].map((w) => worker(w)));
    await sleep(700);
    const ackedBeforeKill = acknowledged.size;
    expect(ackedBeforeKill).toBeGreaterThan(0);
    down = true;
    await member.halt('SIGKILL');
    // While etcd is down: reads, lists and health answer at once, as a Status, and the process lives.
    await sleep(500);
    for (const path of [`${CM}/w0-0`, CM, `${CM}?resourceVersion=1&resourceVersionMatch=Exact`, `${CM}/w0-0?resourceVersion=1`, '/api/v1/namespaces/default', '/apis/apiextensions.cluster.io/v1/customresourcedefinitions']) {
      const t0 = Date.now();
      const r = await s.get(path);
      expect(Date.now() - t0).toBeLessThan(ANSWER_BOUND_MS);
      expect([503, 504], `${path}: ${r.text}`).toContain(r.status);
      expect(r.json).toMatchObject({ kind: 'Status', status: 'Failure', code: r.status });
    }
    expect((await s.get('/readyz')).status).toBe(500);
    // A watch asked for while etcd is down: refused with a Status, or ended after an ERROR event; never held open.
    const refused = await s.watch(`${CM}?watch=1`, { ms: ANSWER_BOUND_MS });
    if (refused.status === 200) {
      expect(refused.ended).toBe(true);
      expect(refused.events.at(-1)?.type).toBe('ERROR');
    } else expect([503, 504]).toContain(refused.status);
    // The open watch ends (closed, or an ERROR event first).
    const ended = await watch;
    expect(ended.ended).toBe(true);
    const lastSeen = ended.events.filter((e) => e.type !== 'ERROR').at(-1)?.object.metadata.resourceVersion ?? before;
    await sleep(1000);
    down = false;
    await member.restart();
    // Back: writes succeed again within a few seconds (the client's circuit breaker retries after 1 s).
    const backAt = Date.now();
    for (;;) {
      const r = await s.post(CM, { metadata: { name: `probe-${Date.now()}` } });
      if (r.status === 201) break;
      expect(Date.now() - backAt).toBeLessThan(10_000);
      await sleep(100);
    }
    const recoveredMs = Date.now() - backAt;
    await sleep(700);
    deadline = 0;
    await load;
    expect(slow).toEqual([]);
    expect([...statuses.keys()].filter((c) => c !== 201 && c !== 503 && c !== 504)).toEqual([]);
    expect(statuses.get(503) ?? statuses.get(504)).toBeGreaterThan(0);
    expect(acknowledged.size).toBeGreaterThan(ackedBeforeKill);

    // A client resuming from the last resourceVersion it saw gets every write after it, in order, once.
    const resumed: WatchEventLine[] = [];
    const expected = [...acknowledged].filter(([, rv]) => Number(rv) > Number(lastSeen));
    const res = await s.watch(`${CM}?watch=1&resourceVersion=${lastSeen}`, {
      ms: 10_000,
      until: (ev) => ev.filter((e) => e.type === 'ADDED' && acknowledged.has(e.object.metadata.name)).length >= expected.length,
    });
    expect(res.status).toBe(200);
    resumed.push(...res.events.filter((e) => e.type === 'ADDED' && acknowledged.has(e.object.metadata.name)));
    const rvs = resumed.map((e) => Number(e.object.metadata.resourceVersion));
    expect(rvs).toEqual([...rvs].sort((a, b) => a - b));
    expect(new Set(resumed.map((e) => e.object.metadata.name))).toEqual(new Set(expected.map(([n]) => n)));
    for (const e of resumed) expect(e.object.metadata.resourceVersion).toBe(acknowledged.get(e.object.metadata.name));

    // Nothing acknowledged is lost: each is in etcd, at the resourceVersion it was acknowledged with.
    const listed = new Map(((await s.get(CM)).json.items as { metadata: { name: string; resourceVersion: string } }[]).map((i) => [i.metadata.name, i.metadata.resourceVersion]));
    expect([...acknowledged].filter(([n, rv]) => listed.get(n) !== rv)).toEqual([]);
    // The server's own controllers followed etcd back (their watches reopened): a new CRD is served.
    const group = 'faults.example.cluster.io';
    const crd = await s.post('/apis/apiextensions.cluster.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.cluster.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `things.${group}` },
      spec: { group, scope: 'Namespaced', names: { plural: 'things', singular: 'thing', kind: 'Thing' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] },
    });
    expect(crd.status, crd.text).toBe(201);
    const crdAt = Date.now();
    while ((await s.get(`/apis/${group}/v1/namespaces/default/things`)).status !== 200) {
      expect(Date.now() - crdAt, 'CRD served after the outage').toBeLessThan(10_000);
      await sleep(100);
    }
    expect(s.proc.exitCode).toBe(null);
    console.log(`etcd outage: ${acknowledged.size} writes acknowledged, none lost; statuses ${JSON.stringify(Object.fromEntries(statuses))}; writes accepted again ${recoveredMs} ms after etcd was back`);
  }, 45_000);

  it('etcd hung (SIGSTOP): a request is answered 503/504 within the call deadline, not held; service resumes on SIGCONT', async () => {
    const before = await s.post(CM, { metadata: { name: 'before-hang' } });
    expect(before.status, before.text).toBe(201);
    member.process.kill('SIGSTOP');
    try {
      const t0 = Date.now();
      const [get, post] = await Promise.all([s.get(`${CM}/before-hang`), s.post(CM, { metadata: { name: 'during-hang' } })]);
      const took = Date.now() - t0;
      expect(took).toBeLessThan(ANSWER_BOUND_MS);
      for (const r of [get, post]) {
        expect([503, 504], r.text).toContain(r.status);
        expect(r.json).toMatchObject({ kind: 'Status', status: 'Failure' });
      }
      console.log(`etcd hung: GET ${get.status} and POST ${post.status} after ${took} ms`);
    } finally {
      member.process.kill('SIGCONT');
    }
    const t1 = Date.now();
    for (;;) {
      const r = await s.get(`${CM}/before-hang`);
      if (r.status === 200) break;
      expect(Date.now() - t1, `service back after SIGCONT: ${r.status} ${r.text}`).toBeLessThan(20_000);
      await sleep(100);
    }
    expect(s.proc.exitCode).toBe(null);
  }, 45_000);
});
