// kubectl against a real server process, with the kubeconfig the server writes on first start.
// kubectl on these machines is a dispatcher that picks its binary from the server's /version.
// Where kubectl is absent the tests are skipped with a visible warning.

import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { TestServer } from './harness.ts';

const KUBECTL = ['/usr/bin/kubectl', '/usr/local/bin/kubectl'].find((p) => existsSync(p));
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

  const kubectl = (args: string[], timeoutMs = 30_000): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile(KUBECTL as string, ['--kubeconfig', s.kubeconfig, '--cache-dir', join(work, 'cache'), ...args], { timeout: timeoutMs }, (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      });
    });

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
      while (!out.includes('watched-by-kubectl') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(out).toMatch(/watched-by-kubectl\s+1\s+/);
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
