// kubectl with a CustomResourceDefinition against a real server process: apply the CRD, wait for
// Established, apply a custom resource, get it by short name, explain its schema.
// Where kubectl is absent the tests are skipped with a visible warning.

import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer } from './harness.ts';

const KUBECTL = ['/usr/bin/kubectl', '/usr/local/bin/kubectl'].find((p) => existsSync(p));
if (!KUBECTL) console.warn('kubectl not found (/usr/bin/kubectl): skipping the kubectl CRD e2e tests');
const maybe = KUBECTL ? describe : describe.skip;

const CRD = `apiVersion: apiextensions.cluster.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.kc.example.cluster.io
spec:
  group: kc.example.cluster.io
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [ct]
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - name: Schedule
      type: string
      jsonPath: .spec.cronSpec
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: The desired schedule of the cron tab.
            properties:
              cronSpec:
                type: string
                description: The cron expression.
              image:
                type: string
                description: The image to run.
`;

const CR = `apiVersion: kc.example.cluster.io/v1
kind: CronTab
metadata:
  name: nightly
  namespace: default
spec:
  cronSpec: "0 3 * * *"
  image: backup:1
`;

maybe('kubectl with a CustomResourceDefinition', () => {
  let s: TestServer;
  let work: string;

  const kubectl = (args: string[], timeoutMs = 30_000): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile(KUBECTL as string, ['--kubeconfig', s.kubeconfig, '--cache-dir', join(work, 'cache'), ...args], { timeout: timeoutMs }, (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      });
    });

  beforeAll(async () => {
    s = await TestServer.start('sqlite');
    work = mkdtempSync(join(tmpdir(), 'clusterspec-kubectl-crd-'));
    writeFileSync(join(work, 'crd.yaml'), CRD);
    writeFileSync(join(work, 'cr.yaml'), CR);
  });
  afterAll(async () => {
    await s?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('apply the CRD, wait for Established, apply a custom resource, get it by short name, explain it', async () => {
    const a = await kubectl(['apply', '-f', join(work, 'crd.yaml')]);
    expect(a.stderr).toBe('');
    expect(a.stdout).toContain('customresourcedefinition.apiextensions.cluster.io/crontabs.kc.example.cluster.io created');
    const w = await kubectl(['wait', '--for', 'condition=Established', '--timeout=20s', 'customresourcedefinition/crontabs.kc.example.cluster.io'], 30_000);
    expect(w.stdout).toContain('condition met');
    const cr = await kubectl(['apply', '-f', join(work, 'cr.yaml')]);
    expect(cr.stderr).toBe('');
    expect(cr.stdout).toContain('crontab.kc.example.cluster.io/nightly created');
    const again = await kubectl(['apply', '-f', join(work, 'cr.yaml')]);
    expect(again.stdout).toContain('crontab.kc.example.cluster.io/nightly unchanged');
    const get = await kubectl(['get', 'ct', '-n', 'default']);
    expect(get.code).toBe(0);
    expect(get.stdout).toMatch(/NAME\s+SCHEDULE/);
    expect(get.stdout).toMatch(/nightly\s+0 3 \* \* \*/);
    const explain = await kubectl(['explain', 'crontabs.spec']);
    expect(explain.stderr).toBe('');
    expect(explain.stdout).toContain('KIND:       CronTab');
    expect(explain.stdout).toContain('cronSpec');
    expect(explain.stdout).toContain('The cron expression.');
    const del = await kubectl(['delete', '-f', join(work, 'crd.yaml')], 30_000);
    expect(del.code).toBe(0);
    const gone = await kubectl(['get', 'crontabs', '-n', 'default']);
    expect(gone.code).not.toBe(0);
  }, 90_000);
});
