// Three server replicas on one etcd (throwaway member), sharing one data directory (token, serving
// certificate, kubeconfig): kubectl against each, writes through one seen by reads and watches
// through the others (in order, no gap, no repeat), a CRD and a webhook configuration registered
// through one replica in effect in all within the stated bounds, and one replica killed with kill -9
// under write load (the other replicas' clients see no error, every acknowledged write is in etcd,
// and the elected controllers move to a live replica).

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePKI, reply, startWebhookServer, type TestPKI, type WebhookServer } from '../../runtime/admission/webhook-fixture.ts';
import { etcdSkipReason, startEtcdMember, type EtcdMember } from '../../runtime/storage/etcd-test-member.ts';
import { TestServer, type WatchEventLine } from './harness.ts';
import { KUBECTL, runKubectl } from './kubectl.ts';

const skip = etcdSkipReason();
if (skip) console.warn(`replicas: ${skip}`);
if (!skip && !KUBECTL) console.warn('replicas: kubectl is not installed: the kubectl part is SKIPPED');

const PREFIX = '/replicas';
const CM = '/api/v1/namespaces/default/configmaps';
const CRDS = '/apis/apiextensions.cluster.io/v1/customresourcedefinitions';
const VWC = '/apis/admissionregistration.cluster.io/v1/validatingwebhookconfigurations';
const GROUP = 'replicas.example.cluster.io';
/** The propagation bounds this suite holds the replicas to (README: runtime/storage/README.md, "Several replicas"). */
const CRD_BOUND_MS = 5000;
const WEBHOOK_BOUND_MS = 2000;
/** Leader election timing for the replicas (short, so that a take-over fits the test). */
const ELECTION = ['--leader-elect-lease-duration', '3s', '--leader-elect-renew-deadline', '2s', '--leader-elect-retry-period', '500ms'];

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls until `fn` is true; resolves to the milliseconds it took; throws past `ms`. */
async function within(what: string, ms: number, fn: () => Promise<boolean>): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    if (await fn()) return Date.now() - t0;
    if (Date.now() - t0 > ms) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(25);
  }
}

/** etcd's JSON gateway: keys (and values) under a prefix, read from etcd itself. */
async function etcdRange(member: EtcdMember, prefix: string, keysOnly = true): Promise<{ key: string; value: string }[]> {
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
  const res = await fetch(`${member.endpoint}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: b64(prefix), range_end: b64(end), keys_only: keysOnly }) });
  const body = (await res.json()) as { kvs?: { key: string; value?: string }[] };
  return (body.kvs ?? []).map((kv) => ({ key: Buffer.from(kv.key, 'base64').toString(), value: Buffer.from(kv.value ?? '', 'base64').toString() }));
}

describe.skipIf(skip !== undefined)('three replicas on one etcd', () => {
  let member: EtcdMember;
  let dataDir: string;
  let pki: TestPKI;
  let wh: WebhookServer;
  const replicas: TestServer[] = [];
  const start = (): Promise<TestServer> =>
    TestServer.start('memory', dataDir, ['--storage', 'etcd', '--etcd-servers', member.endpoint, '--etcd-prefix', PREFIX, ...ELECTION], false);

  beforeAll(async () => {
    member = await startEtcdMember();
    dataDir = mkdtempSync(join(tmpdir(), 'clusterspec-replicas-'));
    // Started together on a fresh data directory: one token and one certificate come out of it.
    replicas.push(...(await Promise.all([start(), start(), start()])));
    pki = makePKI();
    wh = await startWebhookServer(pki);
    wh.handlers.set('/deny', (rv, _req, res) => reply(res, rv, { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'denied by the replicated webhook' } }));
    // three server processes and an etcd member start at once: about 10 s alone, past 60 s once beside the rest of the suite on two cores
  }, 120_000);
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await wh?.close();
    await member?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('share one token and one serving certificate, and listen on three ports', () => {
    expect(new Set(replicas.map((r) => r.port)).size).toBe(3);
    expect(new Set(replicas.map((r) => r.token)).size).toBe(1);
    expect(new Set(replicas.map((r) => r.ca.toString())).size).toBe(1);
    expect(readFileSync(join(dataDir, 'admin.token'), 'utf8').trim()).toBe(replicas[0].token);
  });

  it.skipIf(!KUBECTL)('kubectl against each replica (the shared kubeconfig, --server per replica): a write through one is read through the next', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'kubectl-cache-'));
    try {
      for (const [i, r] of replicas.entries()) {
        const next = replicas[(i + 1) % replicas.length];
        const created = await runKubectl(join(dataDir, 'kubeconfig'), cache, ['--server', r.url, 'create', 'configmap', `kubectl-${i}`, `--from-literal=via=replica-${i}`]);
        expect(created.code, created.stderr).toBe(0);
        const read = await runKubectl(join(dataDir, 'kubeconfig'), cache, ['--server', next.url, 'get', 'configmap', `kubectl-${i}`, '-o', 'jsonpath={.data.via}']);
        expect(read.code, read.stderr).toBe(0);
        expect(read.stdout).toBe(`replica-${i}`);
        const ns = await runKubectl(join(dataDir, 'kubeconfig'), cache, ['--server', r.url, 'get', 'ns', 'default', '-o', 'name']);
        expect(ns.stdout.trim()).toBe('namespace/default');
      }
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it('a watch on each replica sees the creates made through the others, in order, once, at their resourceVersions', async () => {
    const from = (await replicas[0].get(CM)).json.metadata.resourceVersion as string;
    const N = 40;
    const done = (ev: WatchEventLine[]): boolean => ev.filter((e) => e.object.metadata.name.startsWith('x-')).length >= N;
    const watches = await Promise.all(replicas.map((r) => r.startWatch(`${CM}?watch=1&resourceVersion=${from}`, 15_000, done)));
    // Creates through replicas 1 and 2 alternately, four at a time.
    const created = new Map<string, string>();
    for (let i = 0; i < N; i += 4) {
      await Promise.all(
        [0, 1, 2, 3].map(async (k) => {
          const name = `x-${String(i + k).padStart(2, '0')}`;
          const r = await replicas[1 + ((i + k) % 2)].post(CM, { metadata: { name }, data: { n: String(i + k) } });
          expect(r.status, r.text).toBe(201);
          created.set(name, r.json.metadata.resourceVersion);
        }),
      );
    }
    const sequences = [];
    for (const w of watches) {
      const { events } = await w.result;
      const seq = events.filter((e) => e.object.metadata.name.startsWith('x-')).map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion]);
      expect(seq.length).toBe(N);
      expect(seq.every(([type, name, rv]) => type === 'ADDED' && created.get(name) === rv)).toBe(true);
      const rvs = seq.map(([, , rv]) => Number(rv));
      expect(rvs).toEqual([...rvs].sort((a, b) => a - b));
      expect(new Set(rvs).size).toBe(N);
      sequences.push(seq);
    }
    // Every replica's watch saw the same sequence.
    expect(sequences[1]).toEqual(sequences[0]);
    expect(sequences[2]).toEqual(sequences[0]);
    // Reads through a replica other than the writer see the write at once.
    for (const [name, rv] of created) {
      const got = await replicas[0].get(`${CM}/${name}`);
      expect(got.json.metadata.resourceVersion).toBe(rv);
    }
  });

  it(`a CRD created through one replica is served by every replica within ${CRD_BOUND_MS} ms`, async () => {
    const crd = {
      apiVersion: 'apiextensions.cluster.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `gadgets.${GROUP}` },
      spec: {
        group: GROUP,
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
      },
    };
    const t0 = Date.now();
    expect((await replicas[1].post(CRDS, crd)).status).toBe(201);
    const path = `/apis/${GROUP}/v1/namespaces/default/gadgets`;
    const took = await Promise.all(replicas.map((r, i) => within(`replica ${i} serving gadgets`, CRD_BOUND_MS, async () => (await r.get(path)).status === 200)));
    console.log(`CRD served by the three replicas after ${took.map((t) => `${t} ms`).join(', ')} (bound ${CRD_BOUND_MS} ms; from the create: ${Date.now() - t0} ms)`);
    const made = await replicas[2].post(path, { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: 'g1' }, spec: { size: 3 } });
    expect(made.status, made.text).toBe(201);
    expect((await replicas[0].get(`${path}/g1`)).json.spec).toEqual({ size: 3 });
    // Its schema is in force on every replica: a wrong type is refused by each.
    for (const r of replicas) expect((await r.post(path, { apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: 'bad' }, spec: { size: 'big' } })).status).toBe(422);
  });

  it(`a ValidatingWebhookConfiguration registered through one replica is enforced by every replica within ${WEBHOOK_BOUND_MS} ms, and its removal too`, async () => {
    const config = {
      apiVersion: 'admissionregistration.cluster.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'replicated' },
      webhooks: [
        {
          name: 'deny.replicas.test.io',
          clientConfig: { url: wh.url('/deny'), caBundle: pki.caBundle },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
          objectSelector: { matchLabels: { guarded: 'yes' } },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          failurePolicy: 'Fail',
          timeoutSeconds: 5,
        },
      ],
    };
    expect((await replicas[0].post(VWC, config)).status).toBe(201);
    let attempt = 0;
    const guarded = (): object => ({ metadata: { name: `guarded-${attempt++}`, labels: { guarded: 'yes' } } });
    const on = await Promise.all(replicas.map((r, i) => within(`replica ${i} enforcing the webhook`, WEBHOOK_BOUND_MS, async () => (await r.post(CM, guarded())).status === 403)));
    expect((await replicas[2].post(CM, guarded())).json.message).toContain('denied by the replicated webhook');
    expect((await replicas[1].request('DELETE', `${VWC}/replicated`)).status).toBe(200);
    const off = await Promise.all(replicas.map((r, i) => within(`replica ${i} no longer enforcing`, WEBHOOK_BOUND_MS, async () => (await r.post(CM, guarded())).status === 201)));
    console.log(`webhook in force on the replicas after ${on.join(', ')} ms, removed after ${off.join(', ')} ms (bound ${WEBHOOK_BOUND_MS} ms)`);
  });

  it('a StorageVersionMigration created through a replica that does not lead is run to Succeeded by the elected one', async () => {
    const SVMS = '/apis/storagemigration.cluster.io/v1alpha1/storageversionmigrations';
    const holder = (await etcdRange(member, `${PREFIX}/leader-election/storage-version-migrator`, false))[0]?.value ?? '';
    const leader = replicas.findIndex((r) => holder.split('_').at(-2) === String(r.proc.pid));
    expect(leader).toBeGreaterThanOrEqual(0);
    const via = replicas[(leader + 1) % replicas.length];
    const made = await via.post(SVMS, { apiVersion: 'storagemigration.cluster.io/v1alpha1', kind: 'StorageVersionMigration', metadata: { name: 'configmaps' }, spec: { resource: { group: '', version: 'v1', resource: 'configmaps' } } });
    expect(made.status, made.text).toBe(201);
    let conditions: { type: string; status: string }[] = [];
    await within('migration Succeeded', 10_000, async () => {
      conditions = (await via.get(`${SVMS}/configmaps`)).json.status?.conditions ?? [];
      return conditions.some((c) => c.type === 'Succeeded' && c.status === 'True');
    });
    expect(conditions.some((c) => c.type === 'Failed' && c.status === 'True')).toBe(false);
  });

  it('kill -9 of the leading replica under write load: the others\' clients see no error, every acknowledged write is in etcd, the lead moves', async () => {
    const leaseKey = `${PREFIX}/leader-election/namespace-controller`;
    const holder = async (): Promise<string | undefined> => (await etcdRange(member, leaseKey, false))[0]?.value;
    const pidOf = (identity: string | undefined): number => Number(identity?.split('_').at(-2));
    const leaderPid = pidOf(await holder());
    const victim = replicas.findIndex((r) => r.proc.pid === leaderPid);
    expect(victim).toBeGreaterThanOrEqual(0);
    const survivors = replicas.filter((_, i) => i !== victim);

    const acknowledged: string[] = [];
    const failures: string[] = [];
    let killed: Promise<void> | undefined;
    let stopAt = Number.POSITIVE_INFINITY;
    const worker = async (r: TestServer, id: string): Promise<void> => {
      for (let n = 0; Date.now() < stopAt && n < 2000; n++) {
        const name = `load-${id}-${n}`;
        try {
          const res = await r.post(CM, { metadata: { name }, data: { n: name } });
          if (res.status === 201) acknowledged.push(name);
          else failures.push(`${id}: ${res.status} ${res.text.slice(0, 120)}`);
        } catch (e) {
          // the victim's connections break at the kill: not acknowledged, no claim either way
          if (r !== replicas[victim]) failures.push(`${id}: ${(e as Error).message}`);
          return;
        }
        if (!killed && acknowledged.length >= 150) {
          killed = replicas[victim].kill();
          stopAt = Date.now() + 1500; // the survivors keep writing after the kill
        }
      }
    };
    const workers = replicas.flatMap((r, i) => Array.from({ length: 6 }, (_, w) => worker(r, `${i}-${w}`)));
    await Promise.all(workers);
    await killed;
    expect(replicas[victim].proc.signalCode).toBe('SIGKILL');
    expect(failures).toEqual([]);
    const victimAcks = acknowledged.filter((n) => n.startsWith(`load-${victim}-`)).length;
    expect(victimAcks).toBeGreaterThan(0);
    // Every acknowledged write is in etcd itself ...
    const inEtcd = new Set((await etcdRange(member, `${PREFIX}/core/configmaps/default/load-`)).map((kv) => kv.key.split('/').pop()));
    expect(acknowledged.filter((n) => !inEtcd.has(n))).toEqual([]);
    // ... and listed by a surviving replica.
    const listed = new Set(((await survivors[0].get(CM)).json.items as { metadata: { name: string } }[]).map((i) => i.metadata.name));
    expect(acknowledged.filter((n) => !listed.has(n))).toEqual([]);
    // The lead moves to a survivor once the victim's lease expires (3 s), at the next retry (0.5 s).
    await within('a survivor leading', 6000, async () => {
      const pid = pidOf(await holder());
      return survivors.some((r) => r.proc.pid === pid);
    });
    // The new leader's namespace controller finishes a namespace left Terminating with no replica
    // working on it (as the killed replica would leave one it had just marked): written into etcd directly.
    expect((await survivors[1].post('/api/v1/namespaces', { metadata: { name: 'orphaned' } })).status).toBe(201);
    expect((await survivors[1].post('/api/v1/namespaces/orphaned/configmaps', { metadata: { name: 'c' } })).status).toBe(201);
    const nsKey = `${PREFIX}/core/namespaces/orphaned`;
    const [stored] = await etcdRange(member, nsKey, false);
    const ns = JSON.parse(stored.value) as { metadata: Record<string, unknown>; status: Record<string, unknown> };
    ns.metadata.deletionTimestamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    ns.status.phase = 'Terminating';
    const b64 = (x: string): string => Buffer.from(x).toString('base64');
    expect((await fetch(`${member.endpoint}/v3/kv/put`, { method: 'POST', body: JSON.stringify({ key: b64(nsKey), value: b64(JSON.stringify(ns)) }) })).status).toBe(200);
    await within('namespace orphaned finished by the elected controller', 10_000, async () => (await survivors[0].get('/api/v1/namespaces/orphaned')).status === 404);
    expect((await survivors[0].get('/api/v1/namespaces/orphaned/configmaps/c')).status).toBe(404);
    console.log(`kill -9 under load: ${acknowledged.length} writes acknowledged (${victimAcks} by the killed replica), none lost; the survivors' clients saw no error`);
  }, 40_000);
});
