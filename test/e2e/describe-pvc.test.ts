// `kubectl describe pvc` against this server, which does not serve pods: kubectl's
// PersistentVolumeClaimDescriber (k8s.io/kubectl pkg/describe, the same in 1.27 and 1.33) reads the
// claim, then lists the namespace's pods (getPodsForPVC, `GET /api/v1/namespaces/<ns>/pods?limit=500`)
// to print "Used By", and returns that list's error as the describe's error: it does not tolerate a
// server without pods, so the describe fails at the pods list with both versions. These tests pin
// that: the failure, that the pods list is the one request that fails (nothing else is missing),
// and that `kubectl events --for` shows the claim's events instead.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer } from './harness.ts';
import { KUBECTL } from './kubectl.ts';

/** kubectl 1.33 through the dispatcher (the server says 1.33), and 1.27 pinned. */
const VERSIONS = [
  ['1.33', KUBECTL],
  ['1.27', ['/usr/lib/google-cloud-sdk/bin/kubectl.1.27'].find((p) => existsSync(p))],
] as const;
for (const [v, bin] of VERSIONS) if (!bin) console.warn(`kubectl ${v} not found: skipping its describe pvc e2e tests`);
const available = VERSIONS.filter(([, bin]) => bin !== undefined) as unknown as [string, string][];
const withKubectl = available.length ? describe : describe.skip;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(bin: string, kubeconfig: string, cacheDir: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(bin, ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir, ...args], { timeout: 30_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

withKubectl('kubectl describe pvc without pods served', () => {
  let s: TestServer;
  let work: string;

  beforeAll(async () => {
    s = await TestServer.start('memory');
    work = mkdtempSync(join(tmpdir(), 'clusterspec-describe-pvc-'));
    const pvc = await s.post('/api/v1/namespaces/default/persistentvolumeclaims', {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    expect(pvc.status).toBe(201);
    const ev = await s.post('/apis/events.cluster.io/v1/namespaces/default/events', {
      apiVersion: 'events.cluster.io/v1',
      kind: 'Event',
      metadata: { name: 'data.1' },
      eventTime: new Date().toISOString().replace(/Z$/, '000Z'),
      reportingController: 'cluster.io/provisioner',
      reportingInstance: 'provisioner-0',
      action: 'Provision',
      reason: 'ProvisioningFailed',
      regarding: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data', uid: pvc.json.metadata.uid },
      note: 'no capacity left',
      type: 'Warning',
    });
    expect(ev.status).toBe(201);
  });
  afterAll(async () => {
    await s?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it.each(available)('kubectl %s: describe pvc fails at the pods list, and only there', async (version, bin) => {
    const r = await run(bin, s.kubeconfig, join(work, `cache-${version}`), ['describe', 'pvc', 'data', '-v=6']);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/Error from server \(NotFound\): .*"pods".*the server could not find the requested resource/);
    // kubectl's request log (-v=6): every request before the pods list succeeded, and it was the last
    const requests = [...r.stderr.matchAll(/(?:GET|"GET") .*?(https:\/\/\S+?)"? .*?(\d{3}) /g)].map((m) => [m[1].replace(/^https:\/\/[^/]+/, ''), m[2]]);
    expect(requests.length).toBeGreaterThan(1);
    expect(requests[requests.length - 1]).toEqual(['/api/v1/namespaces/default/pods?limit=500', '404']);
    expect(requests.slice(0, -1).every(([, status]) => status === '200')).toBe(true);
    expect(requests.map(([path]) => path)).toContain('/api/v1/namespaces/default/persistentvolumeclaims/data');
  });

  it.each(available)("kubectl %s: events --for pvc shows the claim's events instead", async (version, bin) => {
    const r = await run(bin, s.kubeconfig, join(work, `cache-${version}`), ['events', '--for', 'persistentvolumeclaim/data']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Warning\s+ProvisioningFailed\s+\S+\s+no capacity left/);
  });
});
