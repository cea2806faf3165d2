// `kubectl auth whoami` and `kubectl auth can-i` (issue 13, item 8) against a real server process:
// the self reviews answer from the request's user and the server's authorizer (allow-all today).
// kubectl is skipped with a visible message where it is absent.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer } from './harness.ts';
import { KUBECTL, runKubectl } from './kubectl.ts';

if (!KUBECTL) console.warn('kubectl not found (/usr/bin/kubectl): skipping the kubectl auth whoami / can-i e2e tests');

describe('self reviews (issue 13.8)', () => {
  let s: TestServer;
  let cache: string;
  beforeAll(async () => {
    s = await TestServer.start('memory');
    cache = mkdtempSync(join(tmpdir(), 'clusterspec-auth-'));
  });
  afterAll(async () => {
    await s?.stop();
    if (cache) rmSync(cache, { recursive: true, force: true });
  });

  it('SelfSubjectReview over HTTP names the caller', async () => {
    const r = await s.post('/apis/authentication.cluster.io/v1/selfsubjectreviews', { apiVersion: 'authentication.cluster.io/v1', kind: 'SelfSubjectReview' });
    expect(r.status).toBe(201);
    const body = r.json as { kind: string; status: { userInfo: { username: string; groups: string[] } } };
    expect(body.kind).toBe('SelfSubjectReview');
    expect(body.status.userInfo.username).toBeTruthy();
    expect(body.status.userInfo.groups).toContain('system:authenticated');
  });

  it('a GET of a review is 405, and a body of the wrong kind is 400', async () => {
    expect((await s.get('/apis/authorization.cluster.io/v1/selfsubjectaccessreviews')).status).toBe(405);
    const r = await s.post('/apis/authorization.cluster.io/v1/selfsubjectaccessreviews', { apiVersion: 'v1', kind: 'ConfigMap' });
    expect(r.status).toBe(400);
  });

  it.skipIf(!KUBECTL)('kubectl auth whoami', async () => {
    const r = await runKubectl(s.kubeconfig, cache, ['auth', 'whoami', '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const review = JSON.parse(r.stdout) as { kind: string; status: { userInfo: { username: string } } };
    expect(review.kind).toBe('SelfSubjectReview');
    expect(review.status.userInfo.username).toBeTruthy();
  });

  it.skipIf(!KUBECTL)('kubectl auth can-i answers yes, and --list lists the rules', async () => {
    const one = await runKubectl(s.kubeconfig, cache, ['auth', 'can-i', 'create', 'configmaps', '-n', 'default']);
    expect(one.stdout.trim()).toBe('yes');
    expect(one.code).toBe(0);
    const list = await runKubectl(s.kubeconfig, cache, ['auth', 'can-i', '--list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/\*\.\*\s+\[\]\s+\[\]\s+\[\*\]/);
  });
});
