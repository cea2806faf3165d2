// core v1 Events against a real server (memory storage) and the real kubectl: `kubectl describe`
// of a namespaced and a cluster-scoped kind shows the events about the object (kubectl finds them
// by involvedObject field selectors), `kubectl get events` / `kubectl events` list them with
// upstream's columns, the field selectors upstream's events support filter, upstream's legacy
// event validation refuses a mismatched namespace, and --event-ttl deletes events after their TTL.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, TestServer } from './harness.ts';
import { KUBECTL, runKubectl, type KubectlResult } from './kubectl.ts';

if (!KUBECTL) console.warn('kubectl not found (/usr/bin/kubectl): skipping the kubectl Events e2e tests');
const withKubectl = KUBECTL ? describe : describe.skip;

const MANIFEST = `apiVersion: v1
kind: ConfigMap
metadata: {name: ev-cfg, namespace: default}
data: {a: b}
---
apiVersion: storage.cluster.io/v1
kind: StorageClass
metadata: {name: ev-fast}
provisioner: example.com/fast
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: ev-pv}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  hostPath: {path: /tmp/ev-pv}
---
apiVersion: v1
kind: Secret
metadata: {name: ev-secret, namespace: default}
stringData: {a: b}
---
apiVersion: storage.cluster.io/v1
kind: CSIDriver
metadata: {name: ev.csi.example.com}
spec: {}
`;

const EVENTS_PATH = '/api/v1/namespaces/default/events';

/** The events created for the test, given the uids of the ConfigMap and the StorageClass. */
function eventBodies(cfgUid: string, scUid: string): Record<string, unknown>[] {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const micro = new Date().toISOString().replace(/Z$/, '000Z');
  const cfgRef = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'ev-cfg', uid: cfgUid };
  return [
    // an old-style recorder's event
    { metadata: { name: 'ev-cfg.1' }, involvedObject: cfgRef, reason: 'Updated', message: ' config changed ', type: 'Normal', source: { component: 'cfg-watcher', host: 'node-1' }, firstTimestamp: now, lastTimestamp: now, count: 2 },
    // a new-style recorder's event
    { metadata: { name: 'ev-cfg.2' }, involvedObject: cfgRef, reason: 'Invalid', message: 'key a is suspicious', type: 'Warning', eventTime: micro, reportingComponent: 'cluster.io/checker', reportingInstance: 'checker-0', action: 'Check' },
    // about a cluster-scoped object: kept in default
    { metadata: { name: 'ev-fast.1' }, involvedObject: { apiVersion: 'storage.cluster.io/v1', kind: 'StorageClass', name: 'ev-fast', uid: scUid }, reason: 'ProvisioningFailed', message: 'no capacity left', type: 'Warning', source: { component: 'provisioner' }, firstTimestamp: now, lastTimestamp: now, count: 1 },
    // about another object: never shown for ev-cfg
    { metadata: { name: 'ev-other' }, involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'other', uid: 'x' }, reason: 'Unrelated', message: 'someone else', type: 'Normal', firstTimestamp: now, lastTimestamp: now, count: 1 },
  ];
}

/** The data rows of kubectl's table output, split at runs of two or more spaces. */
function rows(out: string): string[][] {
  return out
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s{2,}/));
}

function ok(r: KubectlResult): string {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
}

withKubectl('Events with kubectl', () => {
  let s: TestServer;
  let work: string;
  let cfgUid = '';
  const kubectl = (...args: string[]): Promise<KubectlResult> => runKubectl(s.kubeconfig, join(work, 'cache'), args);

  beforeAll(async () => {
    s = await TestServer.start('memory');
    work = mkdtempSync(join(tmpdir(), 'clusterspec-events-'));
    writeFileSync(join(work, 'manifest.yaml'), MANIFEST);
    ok(await kubectl('create', '-f', join(work, 'manifest.yaml')));
    cfgUid = (await s.get('/api/v1/namespaces/default/configmaps/ev-cfg')).json.metadata.uid as string;
    const scUid = (await s.get('/apis/storage.cluster.io/v1/storageclasses/ev-fast')).json.metadata.uid as string;
    for (const body of eventBodies(cfgUid, scUid)) {
      const r = await s.post(EVENTS_PATH, { apiVersion: 'v1', kind: 'Event', ...body });
      expect(r.status, r.text).toBe(201);
    }
  });
  afterAll(async () => {
    await s?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('kubectl describe configmap shows the events about that ConfigMap only', async () => {
    const out = ok(await kubectl('describe', 'configmap', 'ev-cfg'));
    const events = out.slice(out.indexOf('Events:'));
    expect(events).toMatch(/Type\s+Reason\s+Age\s+From\s+Message/);
    // kubectl's describe prints the source component only, and the count with the age: `1s (x2 over 1s)`
    expect(events).toMatch(/Normal\s+Updated\s+\S+ \(x2 over \S+\)\s+cfg-watcher\s+config changed/);
    expect(events).toMatch(/Warning\s+Invalid\s+\S+\s+cluster\.io\/checker\s+key a is suspicious/);
    expect(events).not.toContain('someone else');
  });

  it('kubectl describe storageclass shows the events about the cluster-scoped object', async () => {
    const out = ok(await kubectl('describe', 'storageclass', 'ev-fast'));
    expect(out).toContain('Name:');
    expect(out.slice(out.indexOf('Events:'))).toMatch(/Warning\s+ProvisioningFailed\s+\S+\s+provisioner\s+no capacity left/);
  });

  // kubectl's own describers (core kinds) and its generic one (our groups) look events up alike;
  // Secret's describer shows none. (PersistentVolumeClaim's describer also lists pods, which are not served.)
  it.each([
    ['persistentvolume', 'ev-pv', true],
    ['csidriver', 'ev.csi.example.com', true],
    ['secret', 'ev-secret', false],
    ['namespace', 'default', false],
  ] as const)('kubectl describe %s %s succeeds', async (kind, name, showsEvents) => {
    const out = ok(await kubectl('describe', kind, name));
    expect(out).toMatch(new RegExp(`^Name:\\s+${name.replace(/\./g, '\\.')}$`, 'm'));
    if (showsEvents) expect(out).toMatch(/^Events:\s+<none>$/m);
  });

  it('kubectl get events prints upstream columns (wide ones with -o wide)', async () => {
    const table = rows(ok(await kubectl('get', 'events')));
    expect(table[0]).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(table.slice(1).map((r) => r.slice(1))).toEqual(
      expect.arrayContaining([
        ['Normal', 'Updated', 'configmap/ev-cfg', 'config changed'],
        ['Warning', 'Invalid', 'configmap/ev-cfg', 'key a is suspicious'],
        ['Warning', 'ProvisioningFailed', 'storageclass/ev-fast', 'no capacity left'],
      ]),
    );
    const wide = rows(ok(await kubectl('get', 'events', 'ev-cfg.1', '-o', 'wide')));
    expect(wide[0]).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'SUBOBJECT', 'SOURCE', 'MESSAGE', 'FIRST SEEN', 'COUNT', 'NAME']);
    // SUBOBJECT is empty: the row has one cell fewer than the header
    expect(wide[1].slice(1)).toEqual(['Normal', 'Updated', 'configmap/ev-cfg', 'cfg-watcher, node-1', 'config changed', expect.stringMatching(/^\d+s$/), '2', 'ev-cfg.1']);
  });

  // Both groups name `ev` as a short name, as upstream's core and events.k8s.io do: kubectl takes the
  // core one and warns as it does against upstream.
  it('kubectl get ev finds core v1 events and warns of the events.cluster.io short name', async () => {
    const r = await kubectl('get', 'ev', 'ev-cfg.1', '-o', 'name');
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('event/ev-cfg.1');
    expect(r.stderr).toContain('short name "ev" could also match lower priority resource events.events.cluster.io');
  });

  it('kubectl events lists them, and --for narrows to one object', async () => {
    const all = ok(await kubectl('events'));
    expect(all.split('\n')[0]).toMatch(/^LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE/);
    for (const reason of ['Updated', 'Invalid', 'ProvisioningFailed', 'Unrelated']) expect(all).toContain(reason);
    const forCfg = ok(await kubectl('events', '--for', 'configmap/ev-cfg'));
    expect(forCfg).toContain('Updated');
    expect(forCfg).toContain('Invalid');
    expect(forCfg).not.toContain('Unrelated');
    expect(forCfg).not.toContain('ProvisioningFailed');
  });

  it.each([
    ['involvedObject.kind=ConfigMap', ['ev-cfg.1', 'ev-cfg.2', 'ev-other']],
    ['involvedObject.kind=ConfigMap,involvedObject.name=ev-cfg', ['ev-cfg.1', 'ev-cfg.2']],
    ['involvedObject.namespace=', ['ev-fast.1']],
    ['involvedObject.apiVersion=storage.cluster.io/v1', ['ev-fast.1']],
    ['type=Warning', ['ev-cfg.2', 'ev-fast.1']],
    ['type!=Warning', ['ev-cfg.1', 'ev-other']],
    ['reason=Updated', ['ev-cfg.1']],
    ['source=cfg-watcher', ['ev-cfg.1']],
    // source falls back to reportingComponent
    ['source=cluster.io/checker', ['ev-cfg.2']],
    ['reportingComponent=cluster.io/checker', ['ev-cfg.2']],
    ['metadata.name=ev-other', ['ev-other']],
  ])('kubectl get events --field-selector %s', async (selector, names) => {
    const out = ok(await kubectl('get', 'events', '--field-selector', selector, '-o', 'name'));
    expect(out.trim().split('\n').sort()).toEqual(names.map((n) => `event/${n}`));
  });

  it('filters by involvedObject.uid, as kubectl describe asks', async () => {
    const r = await s.get(`/api/v1/events?fieldSelector=${encodeURIComponent(`involvedObject.uid=${cfgUid}`)}`);
    expect(r.status).toBe(200);
    expect((r.json.items as { metadata: { name: string } }[]).map((i) => i.metadata.name).sort()).toEqual(['ev-cfg.1', 'ev-cfg.2']);
  });

  it('refuses a field upstream cannot select on', async () => {
    const r = await kubectl('get', 'events', '--field-selector', 'message=x');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('field label not supported: message');
  });

  it('refuses an event whose involvedObject.namespace is not its namespace (legacy event validation)', async () => {
    const r = await s.post(EVENTS_PATH, { apiVersion: 'v1', kind: 'Event', metadata: { name: 'bad' }, involvedObject: { kind: 'ConfigMap', namespace: 'elsewhere', name: 'x' }, reason: 'R' });
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'involvedObject.namespace', message: 'Invalid value: "elsewhere": does not match event.namespace' }]);
  });
});

describe('--event-ttl', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await TestServer.start('memory', undefined, ['--event-ttl', '2s']);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('deletes an event once its TTL after the last write has passed', async () => {
    const body = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'short-lived' }, involvedObject: { kind: 'ConfigMap', namespace: 'default', name: 'x' }, reason: 'R' };
    const created = Date.now();
    expect((await s.post(EVENTS_PATH, body)).status).toBe(201);
    expect((await s.get(`${EVENTS_PATH}/short-lived`)).status).toBe(200);
    await eventually(async () => (await s.get(`${EVENTS_PATH}/short-lived`)).status === 404, 10_000);
    // not before the TTL, not long after it
    expect(Date.now() - created).toBeGreaterThanOrEqual(1_900);
    expect(Date.now() - created).toBeLessThan(6_000);
  });
});
