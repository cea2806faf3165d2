// What real clients told apart from upstream (issue 13, items 1 to 5, 11 and 12), against a real
// server process: LIST paging with selectors, boolean query parameters (the python client's
// `watch=True`), empty omitempty maps (kubectl diff), YAML answers read back by kubectl's YAML 1.1
// reader, the Namespace label and finalizer, the streaming list's end bookmark, and unknown paths.
// kubectl and the python client (Debian's python3-kubernetes) are skipped with a visible message
// where they are absent.

import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { YAML_SCALARS } from '../fixtures/yaml-1.1-scalars.ts';
import { TestServer } from './harness.ts';
import { KUBECTL, runKubectl } from './kubectl.ts';

const PYTHON = '/usr/bin/python3';
const hasPythonClient = ((): boolean => {
  try {
    execFileSync(PYTHON, ['-c', 'import kubernetes'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!KUBECTL) console.warn('kubectl not found (/usr/bin/kubectl): skipping the kubectl parts of the client fidelity e2e tests');
if (!hasPythonClient) console.warn('the python client (python3-kubernetes for /usr/bin/python3) is not installed: skipping its watch test');

const NS = '/api/v1/namespaces/fidelity';
const CM = `${NS}/configmaps`;

/** Python client watch of the ConfigMaps of `namespace` (it sends `watch=True`): the events' types and names. */
const PY_WATCH = `
import json, sys
from kubernetes import client, config, watch
config.load_kube_config(config_file=sys.argv[1])
w = watch.Watch()
seen = []
for ev in w.stream(client.CoreV1Api().list_namespaced_config_map, namespace=sys.argv[2], timeout_seconds=10):
    seen.append([ev['type'], ev['object'].metadata.name])
    if len(seen) >= int(sys.argv[3]):
        w.stop()
print(json.dumps(seen))
`;

describe('client fidelity (issue 13)', () => {
  let s: TestServer;
  let work: string;

  beforeAll(async () => {
    s = await TestServer.start('memory');
    work = mkdtempSync(join(tmpdir(), 'clusterspec-fidelity-'));
    expect((await s.post('/api/v1/namespaces', { metadata: { name: 'fidelity' } })).status).toBe(201);
    for (let i = 0; i < 16; i++) {
      const name = `cm-${String(i).padStart(2, '0')}`;
      expect((await s.post(CM, { metadata: { name, labels: { tier: i % 4 === 3 ? 'other' : 'web' } } })).status).toBe(201);
    }
  });
  afterAll(async () => {
    await s?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('1. a LIST with a label selector and limit answers at most limit items a page', async () => {
    const names: string[] = [];
    const sizes: number[] = [];
    let cont = '';
    for (let i = 0; i < 10; i++) {
      const r = await s.get(`${CM}?labelSelector=tier%3Dweb&limit=5${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
      expect(r.status).toBe(200);
      sizes.push(r.json.items.length);
      names.push(...r.json.items.map((o: { metadata: { name: string } }) => o.metadata.name));
      expect(r.json.metadata.remainingItemCount).toBeUndefined();
      cont = r.json.metadata.continue ?? '';
      if (!cont) break;
    }
    expect(sizes).toEqual([5, 5, 2]);
    expect(names).toHaveLength(12);
    expect(new Set(names).size).toBe(12);
  });

  // [query, answers a watch]
  const watchParams: [string, boolean][] = [
    ['watch=True', true],
    ['watch', true],
    ['watch=TRUE', true],
    ['watch=1', true],
    ['watch=False', false],
    ['watch=0', false],
    ['watch=FALSE', false],
  ];
  it.each(watchParams)('2. ?%s answers a watch: %s', async (query, isWatch) => {
    if (isWatch) {
      const r = await s.watch(`${CM}?${query}&timeoutSeconds=5`, { ms: 5000, until: (ev) => ev.length >= 16 });
      expect(r.status).toBe(200);
      expect(r.events.slice(0, 16).every((e) => e.type === 'ADDED')).toBe(true);
    } else {
      const r = await s.get(`${CM}?${query}`);
      expect(r.status).toBe(200);
      expect(r.json.kind).toBe('ConfigMapList');
    }
  });

  it.runIf(hasPythonClient)('2. the python client watches (it sends watch=True)', async () => {
    const out = await new Promise<string>((resolve, reject) => {
      execFile(PYTHON, ['-c', PY_WATCH, s.kubeconfig, 'fidelity', '16'], { timeout: 30_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)));
    });
    const seen = JSON.parse(out) as [string, string][];
    expect(seen).toHaveLength(16);
    expect(seen.every(([type]) => type === 'ADDED')).toBe(true);
  });

  it('3. empty annotations, labels and data are not stored or answered', async () => {
    const r = await s.post(CM, { metadata: { name: 'empties', annotations: {}, labels: {} }, data: {}, binaryData: {} });
    expect(r.status).toBe(201);
    expect(r.json.metadata).not.toHaveProperty('annotations');
    expect(r.json.metadata).not.toHaveProperty('labels');
    expect(r.json).not.toHaveProperty('data');
    expect(r.json).not.toHaveProperty('binaryData');
    const g = await s.get(`${CM}/empties`);
    expect(g.json.metadata).not.toHaveProperty('annotations');
    expect(g.json).not.toHaveProperty('data');
  });

  // the client-side diff's dry-run patch used to answer `annotations: {}`, which the live object lacks
  const diffFiles: [string, string][] = [
    ['plain', 'data:\n  a: b\n'],
    ['empty maps', '  annotations: {}\n  labels: {}\ndata: {}\n'],
  ];
  it.runIf(!!KUBECTL).each(diffFiles)('3. kubectl diff after kubectl create -f of the same file shows no change (%s)', async (label, tail) => {
    const name = `diff-${label.replace(' ', '-')}`;
    const file = join(work, `${name}.yaml`);
    writeFileSync(file, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: fidelity\n${tail}`);
    const cache = join(work, 'cache');
    const created = await runKubectl(s.kubeconfig, cache, ['create', '-f', file]);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    for (const mode of [[], ['--server-side']]) {
      const diff = await runKubectl(s.kubeconfig, cache, ['diff', ...mode, '-f', file]);
      expect(diff.stdout).toBe('');
      expect(diff.code).toBe(0);
    }
  });

  // The stored PV lacks the empty map and list the file carries; upstream's immutability check of the
  // volume source compares with apiequality.Semantic (nil and empty equal), so these are no changes.
  it.runIf(!!KUBECTL)('3. kubectl diff, apply and replace of the file a PV was created from are accepted (empty volumeAttributes)', async () => {
    const file = join(work, 'pv-empties.yaml');
    writeFileSync(
      file,
      'apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: fidelity-pv-empties\nspec:\n  capacity: {storage: 1Gi}\n  accessModes: [ReadWriteOnce]\n  mountOptions: []\n  csi: {driver: csi.example.com, volumeHandle: h1, volumeAttributes: {}}\n',
    );
    const cache = join(work, 'cache');
    const created = await runKubectl(s.kubeconfig, cache, ['create', '-f', file]);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    for (const args of [['diff', '-f', file], ['diff', '--server-side', '-f', file], ['replace', '-f', file], ['apply', '-f', file]]) {
      const r = await runKubectl(s.kubeconfig, cache, args);
      expect(r.stderr, args.join(' ')).not.toContain('immutable');
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
  });

  it.runIf(!!KUBECTL)('4. YAML answers read back by kubectl (go-yaml v2) as they were sent: every YAML 1.1 scalar, as values and keys', async () => {
    const data: Record<string, string> = {};
    YAML_SCALARS.forEach(([scalar], i) => (data[`v${i}`] = scalar));
    // keys: the scalars a ConfigMap key may be
    for (const [scalar] of YAML_SCALARS) if (/^[-._a-zA-Z0-9]+$/.test(scalar)) data[scalar] = 'key';
    expect((await s.post(CM, { metadata: { name: 'scalars' }, data })).status).toBe(201);
    const y = await s.get(`${CM}/scalars`, { headers: { Accept: 'application/yaml' } });
    expect(y.status).toBe(200);
    expect(y.headers['content-type']).toBe('application/yaml');
    const file = join(work, 'scalars.yaml');
    writeFileSync(file, y.text);
    // --local: kubectl only reads the file (sigs.k8s.io/yaml, go-yaml v2), nothing is sent
    const read = await runKubectl(s.kubeconfig, join(work, 'cache'), ['label', '--local', '-f', file, '-o', 'json', 'read=back']);
    expect(read.stderr).toBe('');
    expect(read.code).toBe(0);
    expect(JSON.parse(read.stdout).data).toEqual(data);
    // and the server takes its own YAML answer back
    const again = await s.request('POST', CM, { raw: y.text.replace('name: scalars', 'name: scalars-again').replace(/\n {2}(resourceVersion|uid|creationTimestamp): .*/g, ''), headers: { 'Content-Type': 'application/yaml' } });
    expect(again.status).toBe(201);
    expect(again.json.data).toEqual(data);
  });

  it('5. a new Namespace gets the name label and the cluster finalizer', async () => {
    const r = await s.post('/api/v1/namespaces', { metadata: { name: 'labelled', labels: { 'cluster.io/metadata.name': 'wrong' } } });
    expect(r.status).toBe(201);
    expect(r.json.metadata.labels).toEqual({ 'cluster.io/metadata.name': 'labelled' });
    expect(r.json.spec).toEqual({ finalizers: ['cluster'] });
    const sel = await s.get('/api/v1/namespaces?labelSelector=cluster.io%2Fmetadata.name%3Dlabelled');
    expect(sel.json.items.map((n: { metadata: { name: string } }) => n.metadata.name)).toEqual(['labelled']);
  });

  it('11. the streaming list ends with a bookmark unmodified client-go recognises', async () => {
    const r = await s.watch(`${CM}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`, {
      ms: 5000,
      until: (ev) => ev.some((e) => e.type === 'BOOKMARK'),
    });
    const bm = r.events.find((e) => e.type === 'BOOKMARK');
    expect(bm?.object.metadata.annotations['k8s.io/initial-events-end']).toBe('true');
    expect(bm?.object.metadata.annotations['cluster.io/initial-events-end']).toBe('true');
  });

  // [path, upstream's answer]: a NotFound Status where go-restful claims the path (/api/…, a
  // built-in group's /apis/<group>/…), Go's plain-text 404 page elsewhere
  const unknownPaths: [string, 'Status' | 'page'][] = [
    ['/api/v1/nothings', 'Status'],
    ['/api/v1/namespaces/fidelity/configmaps/cm-00/nothing', 'Status'],
    ['/api/v2', 'Status'],
    ['/api/v2/things', 'Status'],
    ['/apis/storage.cluster.io/v1/nothings', 'Status'],
    ['/apis/storage.cluster.io/v1/storageclasses/x/nothing', 'Status'],
    ['/apis/storage.cluster.io/v9', 'Status'],
    ['/apis/admissionregistration.cluster.io/v1/nothings', 'Status'],
    ['/apis/nope.cluster.io', 'page'],
    ['/apis/nope.cluster.io/v1', 'page'],
    ['/apis/nope.cluster.io/v1/things', 'page'],
    ['/apis/storage.cluster.iox/v1/things', 'page'],
    ['/apifoo', 'page'],
    ['/foo', 'page'],
    ['/foo/bar', 'page'],
  ];
  it.each(unknownPaths)('12. GET %s answers the 404 %s', async (path, answer) => {
    const r = await s.get(path);
    expect(r.status).toBe(404);
    if (answer === 'page') {
      expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(r.text).toBe('404 page not found\n');
    } else {
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.text).toBe('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}\n');
    }
  });
});
