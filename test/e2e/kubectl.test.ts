// kubectl against a real server process, with the kubeconfig the server writes on first start.
// kubectl on these machines is a dispatcher that picks its binary from the server's /version.
// Where kubectl is absent the tests are skipped with a visible warning.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { TestServer } from './harness.ts';
import { KUBECTL, runKubectl, type KubectlResult } from './kubectl.ts';

if (!KUBECTL) console.warn('kubectl not found (/usr/bin/kubectl): skipping the kubectl e2e tests');
const maybe = KUBECTL ? describe : describe.skip;

const MANIFEST = `apiVersion: v1
kind: Namespace
metadata:
  name: kc
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: kc
  labels:
    app: demo
data:
  mode: fast
  level: "3"
---
apiVersion: v1
kind: Secret
metadata:
  name: creds
  namespace: kc
stringData:
  password: hunter2
---
apiVersion: storage.cluster.io/v1
kind: StorageClass
metadata:
  name: kc-fast
provisioner: example.com/fast
reclaimPolicy: Retain
`;

maybe('kubectl e2e', () => {
  let s: TestServer;
  let work: string;
  let manifest: string;

  const kubectl = (args: string[], timeoutMs?: number): Promise<KubectlResult> => runKubectl(s.kubeconfig, join(work, 'cache'), args, timeoutMs);

  beforeAll(async () => {
    s = await TestServer.start('sqlite');
    work = mkdtempSync(join(tmpdir(), 'clusterspec-kubectl-'));
    manifest = join(work, 'manifest.yaml');
    writeFileSync(manifest, MANIFEST);
  });
  afterAll(async () => {
    await s?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('the printed command works: get ns', async () => {
    expect(s.stdout).toContain(`kubectl --kubeconfig ${s.kubeconfig} get ns`);
    const r = await kubectl(['get', 'ns']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^NAME\s+STATUS\s+AGE\n/);
    expect(r.stdout).toMatch(/\ndefault\s+Active\s+/);
  });

  it('apply -f a multi-document file creates everything, and again is unchanged', async () => {
    const r = await kubectl(['apply', '-f', manifest]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('namespace/kc created');
    expect(r.stdout).toContain('configmap/settings created');
    expect(r.stdout).toContain('secret/creds created');
    expect(r.stdout).toContain('storageclass.storage.cluster.io/kc-fast created');
    const again = await kubectl(['apply', '-f', manifest]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('configmap/settings unchanged');
    // A changed document is patched (strategic merge patch for the built-in ConfigMap).
    writeFileSync(manifest, MANIFEST.replace('mode: fast', 'mode: slow'));
    const changed = await kubectl(['apply', '-f', manifest]);
    expect(changed.code).toBe(0);
    expect(changed.stdout).toContain('configmap/settings configured');
  });

  it('apply --server-side', async () => {
    const doc = join(work, 'ssa.yaml');
    writeFileSync(doc, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\n  namespace: kc\ndata:\n  x: "1"\n');
    const r = await kubectl(['apply', '--server-side', '-f', doc]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('configmap/ssa serverside-applied');
    const got = parseYaml((await kubectl(['get', 'configmap', 'ssa', '-n', 'kc', '-o', 'yaml', '--show-managed-fields'])).stdout);
    expect(got.metadata.managedFields[0]).toMatchObject({ manager: 'kubectl', operation: 'Apply' });
    expect((await kubectl(['delete', 'configmap', 'ssa', '-n', 'kc'])).code).toBe(0);
  });

  it('get prints tables with the printer columns', async () => {
    const cm = await kubectl(['get', 'configmaps', '-n', 'kc']);
    expect(cm.code).toBe(0);
    expect(cm.stdout).toMatch(/^NAME\s+DATA\s+AGE\n/);
    expect(cm.stdout).toMatch(/\nsettings\s+2\s+\d+s\n/);
    const sc = await kubectl(['get', 'sc', 'kc-fast']);
    expect(sc.code).toBe(0);
    expect(sc.stdout).toMatch(/^NAME\s+PROVISIONER\s+RECLAIMPOLICY/);
    expect(sc.stdout).toMatch(/\nkc-fast\s+example\.com\/fast\s+Retain\s+/);
    const sec = await kubectl(['get', 'secret', 'creds', '-n', 'kc']);
    expect(sec.stdout).toMatch(/\ncreds\s+Opaque\s+1\s+/);
  });

  it('get -o yaml returns the object', async () => {
    const r = await kubectl(['get', 'configmap', 'settings', '-n', 'kc', '-o', 'yaml']);
    expect(r.code).toBe(0);
    const obj = parseYaml(r.stdout);
    expect(obj).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'kc' }, data: { mode: 'slow', level: '3' } });
    const sec = parseYaml((await kubectl(['get', 'secret', 'creds', '-n', 'kc', '-o', 'yaml'])).stdout);
    expect(sec.stringData).toBeUndefined();
    expect(Buffer.from(sec.data.password, 'base64').toString()).toBe('hunter2');
  });

  it('get -w streams changes for a bounded time', async () => {
    const proc = spawn(KUBECTL as string, ['--kubeconfig', s.kubeconfig, '--cache-dir', join(work, 'cache'), 'get', 'configmaps', '-n', 'kc', '-w', '--request-timeout=20s'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    try {
      const deadline = Date.now() + 15_000;
      while (!out.includes('settings') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(out).toContain('settings');
      const c = await s.post('/api/v1/namespaces/kc/configmaps', { metadata: { name: 'watched-by-kubectl' }, data: { a: '1' } });
      expect(c.status).toBe(201);
      // the whole row: kubectl's output may arrive in pieces
      const row = /watched-by-kubectl\s+1\s+/;
      while (!row.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(out).toMatch(row);
      expect(err).toBe('');
    } finally {
      proc.kill('SIGTERM');
    }
  });

  it('create namespace|configmap|secret (protobuf bodies), label and annotate', async () => {
    expect((await kubectl(['create', 'namespace', 'made'])).stdout).toContain('namespace/made created');
    const cm = await kubectl(['create', 'configmap', 'lit', '-n', 'made', '--from-literal=a=b', '--from-literal=c=d']);
    expect(cm.stderr).toBe('');
    expect(cm.stdout).toContain('configmap/lit created');
    const sec = await kubectl(['create', 'secret', 'generic', 'gen', '-n', 'made', '--from-literal=k=v']);
    expect(sec.stdout).toContain('secret/gen created');
    expect((await kubectl(['label', 'configmap', 'lit', '-n', 'made', 'team=x'])).stdout).toContain('configmap/lit labeled');
    expect((await kubectl(['annotate', 'configmap', 'lit', '-n', 'made', 'note=y'])).stdout).toContain('configmap/lit annotated');
    const got = parseYaml((await kubectl(['get', 'configmap', 'lit', '-n', 'made', '-o', 'yaml'])).stdout);
    expect(got).toMatchObject({ data: { a: 'b', c: 'd' }, metadata: { labels: { team: 'x' }, annotations: { note: 'y' } } });
    expect((await kubectl(['delete', 'namespace', 'made'])).stdout).toContain('namespace "made" deleted');
  });

  it('patch --type merge, --type json and --type strategic (list merged by key)', async () => {
    const node = join(work, 'csinode.yaml');
    writeFileSync(
      node,
      'apiVersion: storage.cluster.io/v1\nkind: CSINode\nmetadata:\n  name: kc-node\nspec:\n  drivers:\n  - name: a.csi.example.com\n    nodeID: kc-node\n    topologyKeys: ["zone"]\n  - name: b.csi.example.com\n    nodeID: kc-node\n',
    );
    expect((await kubectl(['apply', '-f', node])).stdout).toContain('csinode.storage.cluster.io/kc-node created');
    const drivers = async (): Promise<string[]> => {
      const got = parseYaml((await kubectl(['get', 'csinode', 'kc-node', '-o', 'yaml'])).stdout);
      return (got.spec.drivers as { name: string }[]).map((d) => d.name).sort();
    };
    // Strategic merge: CSINode drivers merge by key `name` (a new entry is added, a named one changed).
    const smp = await kubectl(['patch', 'csinode', 'kc-node', '--type', 'strategic', '-p', '{"spec":{"drivers":[{"name":"c.csi.example.com","nodeID":"kc-node"}]}}']);
    expect(smp.stderr).toBe('');
    expect(smp.stdout).toContain('csinode.storage.cluster.io/kc-node patched');
    expect(await drivers()).toEqual(['a.csi.example.com', 'b.csi.example.com', 'c.csi.example.com']);
    // $patch: delete removes one entry by key.
    const del = await kubectl(['patch', 'csinode', 'kc-node', '--type', 'strategic', '-p', '{"spec":{"drivers":[{"name":"b.csi.example.com","$patch":"delete"}]}}']);
    expect(del.code).toBe(0);
    expect(await drivers()).toEqual(['a.csi.example.com', 'c.csi.example.com']);
    // Merge patch (RFC 7386): a list is replaced whole.
    const mp = await kubectl(['patch', 'csinode', 'kc-node', '--type', 'merge', '-p', '{"spec":{"drivers":[{"name":"d.csi.example.com","nodeID":"kc-node"}]}}']);
    expect(mp.stdout).toContain('csinode.storage.cluster.io/kc-node patched');
    expect(await drivers()).toEqual(['d.csi.example.com']);

    // A PVC's status conditions merge by key `type` through the status subresource.
    const pvc = join(work, 'pvc.yaml');
    writeFileSync(pvc, 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: claim\n  namespace: kc\nspec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 1Gi\n');
    expect((await kubectl(['apply', '-f', pvc])).stdout).toContain('persistentvolumeclaim/claim created');
    for (const type of ['Resizing', 'FileSystemResizePending']) {
      const r = await kubectl(['patch', 'pvc', 'claim', '-n', 'kc', '--subresource=status', '--type', 'strategic', '-p', JSON.stringify({ status: { conditions: [{ type, status: 'True' }] } })]);
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain('persistentvolumeclaim/claim patched');
    }
    const upd = await kubectl(['patch', 'pvc', 'claim', '-n', 'kc', '--subresource=status', '--type', 'strategic', '-p', '{"status":{"conditions":[{"type":"Resizing","status":"False"}]}}']);
    expect(upd.code).toBe(0);
    const claim = parseYaml((await kubectl(['get', 'pvc', 'claim', '-n', 'kc', '-o', 'yaml'])).stdout);
    const conds = Object.fromEntries((claim.status.conditions as { type: string; status: string }[]).map((c) => [c.type, c.status]));
    expect(conds).toEqual({ Resizing: 'False', FileSystemResizePending: 'True' });

    // JSON patch (RFC 6902), and a failing `test` op that leaves the object alone.
    const jp = await kubectl(['patch', 'pvc', 'claim', '-n', 'kc', '--type', 'json', '-p', '[{"op":"add","path":"/metadata/labels","value":{"tier":"gold"}},{"op":"add","path":"/metadata/annotations","value":{"note":"x"}}]']);
    expect(jp.stderr).toBe('');
    expect(jp.stdout).toContain('persistentvolumeclaim/claim patched');
    const failedTest = await kubectl(['patch', 'pvc', 'claim', '-n', 'kc', '--type', 'json', '-p', '[{"op":"test","path":"/metadata/labels/tier","value":"silver"},{"op":"remove","path":"/metadata/labels"}]']);
    expect(failedTest.code).not.toBe(0);
    const labelled = parseYaml((await kubectl(['get', 'pvc', 'claim', '-n', 'kc', '-o', 'yaml'])).stdout);
    expect(labelled.metadata.labels).toEqual({ tier: 'gold' });
    expect(labelled.metadata.annotations).toEqual({ note: 'x' });
    // The claim's spec is immutable here: the server's Invalid error reaches kubectl.
    const immutable = await kubectl(['patch', 'pvc', 'claim', '-n', 'kc', '--type', 'merge', '-p', '{"spec":{"accessModes":["ReadWriteMany"]}}']);
    expect(immutable.code).not.toBe(0);
    expect(immutable.stderr).toContain('is invalid');
  });

  it('apply --server-side: a conflict with another manager, then --force-conflicts', async () => {
    const doc = (x: string): string => {
      const f = join(work, `owned-${x}.yaml`);
      writeFileSync(f, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: owned\n  namespace: kc\ndata:\n  x: "${x}"\n`);
      return f;
    };
    expect((await kubectl(['apply', '--server-side', '-f', doc('1')])).stdout).toContain('configmap/owned serverside-applied');
    const conflict = await kubectl(['apply', '--server-side', '--field-manager=other', '-f', doc('2')]);
    expect(conflict.code).not.toBe(0);
    expect(conflict.stderr).toContain('Apply failed with 1 conflict: conflict with "kubectl": .data.x');
    const kept = parseYaml((await kubectl(['get', 'configmap', 'owned', '-n', 'kc', '-o', 'yaml'])).stdout);
    expect(kept.data).toEqual({ x: '1' });
    const forced = await kubectl(['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', doc('2')]);
    expect(forced.stderr).toBe('');
    expect(forced.stdout).toContain('configmap/owned serverside-applied');
    const got = parseYaml((await kubectl(['get', 'configmap', 'owned', '-n', 'kc', '-o', 'yaml', '--show-managed-fields'])).stdout);
    expect(got.data).toEqual({ x: '2' });
    // The field moved to the forcing manager; the old one, left with nothing, is dropped.
    const managers = (got.metadata.managedFields as { manager: string; operation: string; fieldsV1: unknown }[]).map((m) => [m.manager, m.operation]);
    expect(managers).toEqual([['other', 'Apply']]);
    expect(got.metadata.managedFields[0].fieldsV1).toEqual({ 'f:data': { 'f:x': {} } });
    // Applying the same value again as the first manager co-owns without a conflict.
    expect((await kubectl(['apply', '--server-side', '-f', doc('2')])).code).toBe(0);
  });

  it('explain a field of a resource of each OpenAPI document', async () => {
    const cases: [string, RegExp][] = [
      ['pv.spec.csi', /KIND:\s+PersistentVolume\nVERSION:\s+v1\n\nFIELD: csi <CSIPersistentVolumeSource>/],
      ['csidriver.spec', /GROUP:\s+storage\.cluster\.io\nKIND:\s+CSIDriver\nVERSION:\s+v1\n\nFIELD: spec <CSIDriverSpec>/],
      ['validatingwebhookconfigurations.webhooks.clientConfig', /GROUP:\s+admissionregistration\.cluster\.io\nKIND:\s+ValidatingWebhookConfiguration\nVERSION:\s+v1\n\nFIELD: clientConfig <WebhookClientConfig>/],
      ['crd.spec.versions', /GROUP:\s+apiextensions\.cluster\.io\nKIND:\s+CustomResourceDefinition\nVERSION:\s+v1\n\nFIELD: versions <\[\]CustomResourceDefinitionVersion>/],
      ['storageversionmigrations.spec', /GROUP:\s+storagemigration\.cluster\.io\nKIND:\s+StorageVersionMigration\nVERSION:\s+v1alpha1\n\nFIELD: spec <StorageVersionMigrationSpec>/],
    ];
    for (const [field, expected] of cases) {
      const r = await kubectl(['explain', field]);
      expect(r.stderr, field).toBe('');
      expect(r.code, field).toBe(0);
      expect(r.stdout, field).toMatch(expected);
      expect(r.stdout, field).toMatch(/\nDESCRIPTION:\n\s+\S/);
    }
    // Nested fields are listed with their types.
    const drivers = await kubectl(['explain', 'csinode.spec.drivers']);
    expect(drivers.stdout).toMatch(/\nFIELDS:\n/);
    expect(drivers.stdout).toMatch(/\n\s+name\s+<string> -required-\n/);
    const unknown = await kubectl(['explain', 'pv.spec.nosuchfield']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('field "nosuchfield" does not exist');
  });

  it('get -w --output-watch-events on one object sees ADDED, MODIFIED, DELETED (bounded)', async () => {
    expect((await kubectl(['create', 'configmap', 'watched-one', '-n', 'kc', '--from-literal=a=1'])).code).toBe(0);
    const proc = spawn(KUBECTL as string, ['--kubeconfig', s.kubeconfig, '--cache-dir', join(work, 'cache'), 'get', 'configmap', 'watched-one', '-n', 'kc', '-w', '--output-watch-events', '--request-timeout=20s'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const waitFor = async (re: RegExp, deadline: number): Promise<void> => {
      while (!re.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(out).toMatch(re);
    };
    try {
      const deadline = Date.now() + 15_000;
      await waitFor(/\nADDED\s+watched-one\s+1\s+/, deadline);
      expect((await kubectl(['patch', 'configmap', 'watched-one', '-n', 'kc', '--type', 'merge', '-p', '{"data":{"b":"2"}}'])).code).toBe(0);
      await waitFor(/\nMODIFIED\s+watched-one\s+2\s+/, deadline);
      // Another object in the namespace is not in a watch of one name.
      expect((await kubectl(['create', 'configmap', 'not-watched', '-n', 'kc', '--from-literal=a=1'])).code).toBe(0);
      expect((await kubectl(['delete', 'configmap', 'watched-one', '-n', 'kc'])).code).toBe(0);
      await waitFor(/\nDELETED\s+watched-one\s+2\s+/, deadline);
      expect(out).toMatch(/^EVENT\s+NAME\s+DATA\s+AGE\n/);
      expect(out).not.toContain('not-watched');
      expect(err).toBe('');
    } finally {
      proc.kill('SIGTERM');
    }
    expect((await kubectl(['delete', 'configmap', 'not-watched', '-n', 'kc'])).code).toBe(0);
  });

  it('delete by name, by label selector, --ignore-not-found, and NotFound', async () => {
    for (const n of ['d1', 'd2', 'd3']) expect((await kubectl(['create', 'configmap', n, '-n', 'kc', '--from-literal=a=1'])).code).toBe(0);
    expect((await kubectl(['label', 'configmap', 'd2', 'd3', '-n', 'kc', 'sweep=yes'])).code).toBe(0);
    const one = await kubectl(['delete', 'configmap', 'd1', '-n', 'kc']);
    expect(one.stderr).toBe('');
    expect(one.stdout).toBe('configmap "d1" deleted\n');
    const bySelector = await kubectl(['delete', 'configmap', '-n', 'kc', '-l', 'sweep=yes']);
    expect(bySelector.code).toBe(0);
    expect(bySelector.stdout.split('\n').filter(Boolean).sort()).toEqual(['configmap "d2" deleted', 'configmap "d3" deleted']);
    const none = await kubectl(['delete', 'configmap', '-n', 'kc', '-l', 'sweep=yes']);
    expect(none.code).toBe(0);
    expect(none.stdout + none.stderr).toContain('No resources found');
    const ignored = await kubectl(['delete', 'configmap', 'd1', '-n', 'kc', '--ignore-not-found']);
    expect(ignored.code).toBe(0);
    expect(ignored.stderr).toBe('');
    const missing = await kubectl(['delete', 'configmap', 'd1', '-n', 'kc']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('Error from server (NotFound): configmaps "d1" not found');
    // Cluster-scoped and a PVC too.
    expect((await kubectl(['delete', 'csinode', 'kc-node'])).stdout).toContain('csinode.storage.cluster.io "kc-node" deleted');
    expect((await kubectl(['delete', 'pvc', 'claim', '-n', 'kc'])).stdout).toContain('persistentvolumeclaim "claim" deleted');
    expect((await kubectl(['delete', 'configmap', 'owned', '-n', 'kc'])).code).toBe(0);
    const left = await kubectl(['get', 'configmaps', '-n', 'kc', '-o', 'name']);
    expect(left.stdout.split('\n').filter(Boolean).sort()).toEqual(['configmap/settings', 'configmap/watched-by-kubectl']);
  });

  it('delete -f removes what the file names', async () => {
    // The namespace goes last: deleting it first would delete its contents server-side (as the
    // namespace controller does), racing kubectl's own deletes of them.
    const docs = MANIFEST.split('---\n');
    const ordered = join(work, 'delete.yaml');
    writeFileSync(ordered, [...docs.slice(1), docs[0]].join('---\n'));
    const r = await kubectl(['delete', '-f', ordered], 60_000);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('configmap "settings" deleted');
    expect(r.stdout).toContain('storageclass.storage.cluster.io "kc-fast" deleted');
    expect(r.stdout).toContain('namespace "kc" deleted');
    const gone = await kubectl(['get', 'sc', 'kc-fast']);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain('storageclasses.storage.cluster.io "kc-fast" not found');
  });
});
