// kubectl with CustomResourceDefinitions against a real server process: apply a CRD, wait for
// Established, then create, list, watch, patch (merge, JSON, refused strategic), server-side apply
// (with a conflict and --force-conflicts), scale and delete custom resources, and see invalid ones
// refused with the exact lines kubectl prints for upstream's errors.
// Where kubectl is absent the tests are skipped with a visible warning.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { eventually, TestServer } from './harness.ts';
import { KUBECTL, runKubectl, type KubectlResult } from './kubectl.ts';

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

/** A CRD with every schema feature a newcomer meets: rules, enum, pattern, defaults, columns, subresources. */
const BACKUP_CRD = `apiVersion: apiextensions.cluster.io/v1
kind: CustomResourceDefinition
metadata:
  name: backups.kc.example.cluster.io
spec:
  group: kc.example.cluster.io
  scope: Namespaced
  names:
    plural: backups
    singular: backup
    kind: Backup
    shortNames: [bk]
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - name: Schedule
      type: string
      jsonPath: .spec.schedule
    - name: Tier
      type: string
      jsonPath: .spec.tier
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [schedule, bucket]
            x-cluster-validations:
            - rule: "self.minRetain <= self.maxRetain"
              messageExpression: "'minRetain ' + string(self.minRetain) + ' exceeds maxRetain ' + string(self.maxRetain)"
            - rule: "self.schedule != '* * * * *'"
              message: every minute is too often
            properties:
              schedule:
                type: string
                pattern: '^(\\S+ ){4}\\S+$'
              tier:
                type: string
                enum: [hot, cold]
                default: cold
              bucket:
                type: string
                x-cluster-validations:
                - rule: self == oldSelf
                  message: bucket is immutable
              replicas:
                type: integer
                minimum: 0
                default: 1
              minRetain:
                type: integer
                default: 1
              maxRetain:
                type: integer
                default: 7
          status:
            type: object
            properties:
              replicas:
                type: integer
`;

/** The parts of a stored Backup the tests read. */
type StoredBackup = { metadata: { managedFields?: { manager: string; operation: string }[] }; spec: Record<string, unknown>; status?: Record<string, unknown> };

/** A Backup manifest in namespace default; `spec` is the YAML of its spec, indented by two. */
function backup(name: string, spec: string): string {
  return `apiVersion: kc.example.cluster.io/v1\nkind: Backup\nmetadata:\n  name: ${name}\n  namespace: default\nspec:\n${spec}\n`;
}

maybe('kubectl with a CustomResourceDefinition', () => {
  let s: TestServer;
  let work: string;

  const kubectl = (args: string[], timeoutMs?: number): Promise<KubectlResult> => runKubectl(s.kubeconfig, join(work, 'cache'), args, timeoutMs);

  /** kubectl running in the background (a watch): its output so far, and a bounded stop. */
  const kubectlBackground = (args: string[], maxMs: number): { output: () => string; stop: () => Promise<void> } => {
    const proc = spawn(KUBECTL as string, ['--kubeconfig', s.kubeconfig, '--cache-dir', join(work, 'cache'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    // never outlives the test, even when an expectation fails before stop()
    const guard = setTimeout(() => proc.kill('SIGKILL'), maxMs);
    return {
      output: () => out,
      stop: async () => {
        clearTimeout(guard);
        if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
        await exited;
      },
    };
  };

  const file = (name: string, text: string): string => {
    const path = join(work, name);
    writeFileSync(path, text);
    return path;
  };

  /** The object as the server stores it (`kubectl get -o json`, managedFields shown: kubectl hides them by default). */
  const getBackup = async (name: string): Promise<StoredBackup> => {
    const r = await kubectl(['get', 'backup', name, '-n', 'default', '-o', 'json', '--show-managed-fields']);
    expect(r.stderr).toBe('');
    return JSON.parse(r.stdout) as StoredBackup;
  };

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

  it('a CRD with rules, enum, pattern, defaults, printer columns, status and scale is created and Established', async () => {
    const a = await kubectl(['apply', '-f', file('backup-crd.yaml', BACKUP_CRD)]);
    expect(a.stderr).toBe('');
    expect(a.stdout).toBe('customresourcedefinition.apiextensions.cluster.io/backups.kc.example.cluster.io created\n');
    const w = await kubectl(['wait', '--for', 'condition=Established', '--timeout=20s', 'customresourcedefinition/backups.kc.example.cluster.io'], 30_000);
    expect(w.stdout).toBe('customresourcedefinition.apiextensions.cluster.io/backups.kc.example.cluster.io condition met\n');

    // kubectl decides between fieldValidation and client-side validation (which needs the protobuf
    // /openapi/v2) from the first PATCH of the kind it meets in Go map order: main, /status and
    // /scale must all list fieldValidation, or kubectl create/apply fails at random
    const root = (await s.get('/openapi/v3')).json as { paths: Record<string, { serverRelativeURL: string }> };
    const doc = (await s.get(root.paths['apis/kc.example.cluster.io/v1'].serverRelativeURL)).json as {
      paths: Record<string, Record<string, { operationId?: string; parameters?: { name: string; in: string }[]; 'x-kubernetes-group-version-kind'?: { kind: string } }>>;
    };
    const patchOps = Object.entries(doc.paths).flatMap(([path, item]) => (item.patch?.['x-kubernetes-group-version-kind']?.kind === 'Backup' ? [[path, item.patch] as const] : []));
    expect(patchOps.map(([path]) => path.replace(/.*\/backups/, '')).sort()).toEqual(['/{name}', '/{name}/scale', '/{name}/status']);
    for (const [path, op] of patchOps) expect(op.parameters?.filter((p) => p.in === 'query').map((p) => p.name), path).toEqual(expect.arrayContaining(['fieldValidation', 'fieldManager', 'dryRun']));
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((op) => (typeof op === 'object' && op !== null && 'operationId' in op ? [op.operationId] : [])));
    expect(new Set(ids).size).toBe(ids.length);
  }, 40_000);

  it('kubectl create -f: strict validation refuses an unknown field, --validate=warn prints the Warning and prunes it, defaults are applied', async () => {
    const path = file('nightly.yaml', backup('nightly', '  schedule: "0 3 * * *"\n  bucket: s3-a\n  color: blue'));
    // kubectl's default --validate=strict sends fieldValidation=Strict: upstream's decode error, 400
    const strict = await kubectl(['create', '-f', path]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toBe(`Error from server (BadRequest): error when creating "${path}": Backup in version "v1" cannot be handled as a Backup: strict decoding error: unknown field "spec.color"\n`);
    const warn = await kubectl(['create', '-f', path, '--validate=warn']);
    expect(warn.code).toBe(0);
    expect(warn.stderr).toBe('Warning: unknown field "spec.color"\n');
    expect(warn.stdout).toBe('backup.kc.example.cluster.io/nightly created\n');
    const dup = await kubectl(['create', '-f', path, '--validate=false']);
    expect(dup.stderr).toBe(`Error from server (AlreadyExists): error when creating "${path}": backups.kc.example.cluster.io "nightly" already exists\n`);

    const list = await kubectl(['get', 'backups', '-n', 'default', '-o', 'yaml']);
    expect(list.stderr).toBe('');
    const doc = parseYaml(list.stdout) as { kind: string; items: { kind: string; metadata: { name: string }; spec: Record<string, unknown> }[] };
    expect(doc.kind).toBe('List');
    expect(doc.items.map((i) => [i.kind, i.metadata.name])).toEqual([['Backup', 'nightly']]);
    // the unknown field is gone; every schema default is filled
    expect(doc.items[0].spec).toEqual({ schedule: '0 3 * * *', bucket: 's3-a', tier: 'cold', replicas: 1, minRetain: 1, maxRetain: 7 });
  }, 40_000);

  it('kubectl get <plural> and its short name print the printer columns', async () => {
    for (const resource of ['backups', 'bk']) {
      const get = await kubectl(['get', resource, '-n', 'default']);
      expect(get.stderr).toBe('');
      const rows = get.stdout.trimEnd().split('\n').map((l) => l.trim().split(/\s{2,}/));
      expect(rows).toEqual([
        ['NAME', 'SCHEDULE', 'TIER', 'REPLICAS'],
        ['nightly', '0 3 * * *', 'cold', '1'],
      ]);
    }
  }, 30_000);

  it('kubectl get <plural> -w prints the table, then a line for each change', async () => {
    const watch = kubectlBackground(['get', 'backups', '-n', 'default', '-w'], 20_000);
    try {
      await eventually(async () => /nightly\s+0 3 \* \* \*\s+cold/.test(watch.output()), 10_000);
      const p = await kubectl(['patch', 'backup', 'nightly', '-n', 'default', '--type', 'merge', '-p', '{"spec":{"tier":"hot"}}']);
      expect(p.stdout).toBe('backup.kc.example.cluster.io/nightly patched\n');
      await eventually(async () => /nightly\s+0 3 \* \* \*\s+hot\s+1/.test(watch.output()), 10_000);
    } finally {
      await watch.stop();
    }
    const lines = watch.output().trimEnd().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+SCHEDULE\s+TIER\s+REPLICAS$/);
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/)[2])).toEqual(['cold', 'hot']);
  }, 30_000);

  const patches: { name: string; args: string[]; code: number; stdout: string; stderr: string; spec?: Record<string, unknown> }[] = [
    { name: 'merge', args: ['--type', 'merge', '-p', '{"spec":{"tier":"cold","minRetain":2}}'], code: 0, stdout: 'backup.kc.example.cluster.io/nightly patched\n', stderr: '', spec: { tier: 'cold', minRetain: 2 } },
    { name: 'json', args: ['--type', 'json', '-p', '[{"op":"replace","path":"/spec/replicas","value":2},{"op":"remove","path":"/spec/minRetain"}]'], code: 0, stdout: 'backup.kc.example.cluster.io/nightly patched\n', stderr: '', spec: { replicas: 2, minRetain: 1 } },
    { name: 'merge, nothing changes', args: ['--type', 'merge', '-p', '{"spec":{"tier":"cold"}}'], code: 0, stdout: 'backup.kc.example.cluster.io/nightly patched (no change)\n', stderr: '' },
    // kubectl's default --type is strategic; custom resources refuse it (415) and kubectl names the kind (kubernetes#112556)
    ...[[], ['--type', 'strategic']].map((type) => ({
      name: type.length ? 'strategic' : 'default type (strategic)',
      args: [...type, '-p', '{"spec":{"tier":"hot"}}'],
      code: 1,
      stdout: '',
      stderr:
        'error: application/strategic-merge-patch+json is not supported by kc.example.cluster.io/v1, Kind=Backup: the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml\n',
      spec: { tier: 'cold' },
    })),
  ];
  it.each(patches)('kubectl patch: $name', async (c) => {
    const r = await kubectl(['patch', 'backup', 'nightly', '-n', 'default', ...c.args]);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: c.code, stdout: c.stdout, stderr: c.stderr });
    if (c.spec) expect((await getBackup('nightly')).spec).toMatchObject(c.spec);
  }, 30_000);

  it('kubectl apply --server-side: create, update, a conflict with another field manager, then --force-conflicts', async () => {
    const mine = file('applied.yaml', backup('applied', '  schedule: "0 4 * * *"\n  bucket: s3-b\n  tier: hot'));
    const created = await kubectl(['apply', '--server-side', '-f', mine]);
    expect({ stdout: created.stdout, stderr: created.stderr }).toEqual({ stdout: 'backup.kc.example.cluster.io/applied serverside-applied\n', stderr: '' });
    const got = await getBackup('applied');
    // defaults filled; kubectl's default manager for server-side apply is "kubectl"
    expect(got.spec).toEqual({ schedule: '0 4 * * *', bucket: 's3-b', tier: 'hot', replicas: 1, minRetain: 1, maxRetain: 7 });
    expect(got.metadata.managedFields?.map((m) => [m.manager, m.operation])).toEqual([['kubectl', 'Apply']]);

    const updated = await kubectl(['apply', '--server-side', '-f', file('applied.yaml', backup('applied', '  schedule: "0 5 * * *"\n  bucket: s3-b\n  tier: hot'))]);
    expect({ stdout: updated.stdout, stderr: updated.stderr }).toEqual({ stdout: 'backup.kc.example.cluster.io/applied serverside-applied\n', stderr: '' });
    expect((await getBackup('applied')).spec.schedule).toBe('0 5 * * *');

    // another applier wants tier: cold, which "kubectl" owns
    const theirs = file('applied-ops.yaml', backup('applied', '  schedule: "0 5 * * *"\n  bucket: s3-b\n  tier: cold'));
    const conflict = await kubectl(['apply', '--server-side', '--field-manager', 'ops', '-f', theirs]);
    expect(conflict.code).toBe(1);
    expect(conflict.stdout).toBe('');
    expect(conflict.stderr.split('\n')[0]).toBe('error: Apply failed with 1 conflict: conflict with "kubectl": .spec.tier');
    expect(conflict.stderr).toContain('--force-conflicts');
    expect((await getBackup('applied')).spec.tier).toBe('hot');

    // an Update manager is named with the apiVersion it wrote through
    const p = await kubectl(['patch', 'backup', 'applied', '-n', 'default', '--type', 'merge', '-p', '{"spec":{"replicas":4}}']);
    expect(p.stdout).toBe('backup.kc.example.cluster.io/applied patched\n');
    const withReplicas = file('applied-replicas.yaml', backup('applied', '  schedule: "0 5 * * *"\n  bucket: s3-b\n  tier: hot\n  replicas: 5'));
    const updateConflict = await kubectl(['apply', '--server-side', '-f', withReplicas]);
    expect(updateConflict.stderr.split('\n')[0]).toBe('error: Apply failed with 1 conflict: conflict with "kubectl-patch" using kc.example.cluster.io/v1: .spec.replicas');

    const forced = await kubectl(['apply', '--server-side', '--force-conflicts', '--field-manager', 'ops', '-f', theirs]);
    expect({ stdout: forced.stdout, stderr: forced.stderr }).toEqual({ stdout: 'backup.kc.example.cluster.io/applied serverside-applied\n', stderr: '' });
    const after = await getBackup('applied');
    expect(after.spec.tier).toBe('cold');
    expect(after.metadata.managedFields?.map((m) => m.manager).sort()).toEqual(['kubectl', 'kubectl-patch', 'ops']);
  }, 40_000);

  it('kubectl scale sets spec replicas through /scale; /status is written apart', async () => {
    const sc = await kubectl(['scale', 'backup', 'nightly', '-n', 'default', '--replicas=3']);
    expect({ stdout: sc.stdout, stderr: sc.stderr }).toEqual({ stdout: 'backup.kc.example.cluster.io/nightly scaled\n', stderr: '' });
    const st = await kubectl(['patch', 'backup', 'nightly', '-n', 'default', '--subresource', 'status', '--type', 'merge', '-p', '{"status":{"replicas":3},"spec":{"replicas":9}}']);
    expect(st.stdout).toBe('backup.kc.example.cluster.io/nightly patched\n');
    const got = await getBackup('nightly');
    // /status ignores spec changes; the main endpoint left status alone
    expect([got.spec.replicas, got.status?.replicas]).toEqual([3, 3]);
    const scale = await kubectl(['get', 'backup', 'nightly', '-n', 'default', '--subresource', 'scale', '-o', 'jsonpath={.kind} {.apiVersion} {.spec.replicas} {.status.replicas}']);
    expect(scale.stdout).toBe('Scale autoscaling/v1 3 3');
    // --current-replicas is kubectl's own precondition, checked against /scale
    const pre = await kubectl(['scale', 'backup', 'nightly', '-n', 'default', '--current-replicas=2', '--replicas=4']);
    expect({ code: pre.code, stderr: pre.stderr }).toEqual({ code: 1, stderr: 'error: Expected replicas to be 2, was 3\n' });
    const table = await kubectl(['get', 'bk', 'nightly', '-n', 'default', '--no-headers']);
    expect(table.stdout.trim().split(/\s{2,}/)).toEqual(['nightly', '0 3 * * *', 'cold', '3']);
  }, 30_000);

  // The lines kubectl prints for a 422 Invalid: `The <Kind> "<name>" is invalid: <field>: <message>`
  // from details.causes (one cause), with upstream's field error texts (api-conventions §1.3).
  const invalid: { name: string; spec: string; line: string }[] = [
    { name: 'bad-rule', spec: '  schedule: "* * * * *"\n  bucket: b', line: 'spec: Invalid value: "object": every minute is too often' },
    { name: 'bad-expression', spec: '  schedule: "0 1 * * *"\n  bucket: b\n  minRetain: 9', line: 'spec: Invalid value: "object": minRetain 9 exceeds maxRetain 7' },
    { name: 'bad-enum', spec: '  schedule: "0 1 * * *"\n  bucket: b\n  tier: warm', line: 'spec.tier: Unsupported value: "warm": supported values: "hot", "cold"' },
    { name: 'bad-pattern', spec: '  schedule: daily\n  bucket: b', line: `spec.schedule: Invalid value: "daily": spec.schedule in body should match '^(\\S+ ){4}\\S+$'` },
    { name: 'bad-required', spec: '  schedule: "0 1 * * *"', line: 'spec.bucket: Required value' },
    { name: 'bad-minimum', spec: '  schedule: "0 1 * * *"\n  bucket: b\n  replicas: -1', line: 'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0' },
  ];
  it.each(invalid)('kubectl create -f refuses $name with upstream\'s line', async (c) => {
    const r = await kubectl(['create', '-f', file(`${c.name}.yaml`, backup(c.name, c.spec))]);
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 1, stdout: '', stderr: `The Backup "${c.name}" is invalid: ${c.line}\n` });
  }, 30_000);

  it('several errors print as kubectl\'s bulleted list; nothing invalid was stored', async () => {
    const r = await kubectl(['create', '-f', file('bad-many.yaml', backup('bad-many', '  schedule: daily\n  tier: warm'))]);
    expect(r.code).toBe(1);
    const [head, ...bullets] = r.stderr.trimEnd().split('\n');
    expect(head).toBe('The Backup "bad-many" is invalid: ');
    // upstream's schema validator walks properties in Go map order: only the set is fixed
    expect(bullets.sort()).toEqual([
      '* spec.bucket: Required value',
      `* spec.schedule: Invalid value: "daily": spec.schedule in body should match '^(\\S+ ){4}\\S+$'`,
      '* spec.tier: Unsupported value: "warm": supported values: "hot", "cold"',
    ]);
    const names = await kubectl(['get', 'backups', '-n', 'default', '-o', 'name']);
    expect(names.stdout).toBe('backup.kc.example.cluster.io/applied\nbackup.kc.example.cluster.io/nightly\n');
  }, 30_000);

  it('the transition rule refuses changing an immutable field on update: merge patch and server-side apply', async () => {
    const line = 'The Backup "applied" is invalid: spec.bucket: Invalid value: "string": bucket is immutable\n';
    const p = await kubectl(['patch', 'backup', 'applied', '-n', 'default', '--type', 'merge', '-p', '{"spec":{"bucket":"s3-z"}}']);
    expect({ code: p.code, stderr: p.stderr }).toEqual({ code: 1, stderr: line });
    const a = await kubectl(['apply', '--server-side', '--force-conflicts', '--field-manager', 'ops', '-f', file('applied-z.yaml', backup('applied', '  schedule: "0 5 * * *"\n  bucket: s3-z\n  tier: cold'))]);
    expect({ code: a.code, stderr: a.stderr }).toEqual({ code: 1, stderr: line });
    // an update that keeps the bucket passes the same rule
    const ok = await kubectl(['patch', 'backup', 'applied', '-n', 'default', '--type', 'merge', '-p', '{"spec":{"maxRetain":30}}']);
    expect(ok.stdout).toBe('backup.kc.example.cluster.io/applied patched\n');
    expect((await getBackup('applied')).spec.bucket).toBe('s3-b');
  }, 30_000);

  it('kubectl delete removes custom resources; a get afterwards is NotFound', async () => {
    const d = await kubectl(['delete', 'backup', 'nightly', '-n', 'default']);
    expect({ stdout: d.stdout, stderr: d.stderr }).toEqual({ stdout: 'backup.kc.example.cluster.io "nightly" deleted\n', stderr: '' });
    const byFile = await kubectl(['delete', '-f', join(work, 'applied.yaml')]);
    expect(byFile.stdout).toBe('backup.kc.example.cluster.io "applied" deleted\n');
    const gone = await kubectl(['get', 'backup', 'nightly', '-n', 'default']);
    expect({ code: gone.code, stderr: gone.stderr }).toEqual({ code: 1, stderr: 'Error from server (NotFound): backups.kc.example.cluster.io "nightly" not found\n' });
    const none = await kubectl(['get', 'backups', '-n', 'default']);
    expect({ stdout: none.stdout, stderr: none.stderr }).toEqual({ stdout: '', stderr: 'No resources found in default namespace.\n' });
  }, 30_000);
});
