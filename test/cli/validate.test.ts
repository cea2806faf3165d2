// Runs the real `clusterspec validate` as a process on the fixture manifests of test/fixtures/cli.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'clusterspec.mjs');
const fx = 'test/fixtures/cli';

function run(args: string[], input?: string) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, input, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Case {
  name: string;
  args: string[];
  stdin?: string;
  code: number;
  stdout: string[];
  stderr?: string[];
}

const cases: Case[] = [
  {
    name: 'valid built-in and custom resources',
    args: ['validate', '--crds', `${fx}/crds`, `${fx}/valid.yaml`],
    code: 0,
    stdout: ['3 objects checked, 0 invalid'],
  },
  {
    name: 'invalid objects, upstream-shaped errors per object with file and document index',
    args: ['validate', '--crds', `${fx}/crds`, `${fx}/invalid.yaml`],
    code: 1,
    stdout: [
      `${fx}/invalid.yaml:8:10 (document 0): Widget.example.cluster.io "w2" is invalid: [spec.color: Unsupported value: "pink": supported values: "red", "green", "blue", spec.replicas: Invalid value: "object": more than 10 replicas need size large]`,
      `${fx}/invalid.yaml:16:14 (document 1): ConfigMap "Bad_Name" is invalid: [data[bad key]: Invalid value: "bad key": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+'), metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), metadata.namespace: Required value]`,
      '3 objects checked, 2 invalid',
    ],
  },
  {
    name: 'an update with --old runs the transition rules (JSON input)',
    args: ['validate', '--crds', `${fx}/crds`, '--old', `${fx}/widget-old.yaml`, `${fx}/widget-new.json`],
    code: 1,
    stdout: [
      `${fx}/widget-new.json:2:50 (document 0): Widget.example.cluster.io "w1" is invalid: [spec.mode: Forbidden: mode is immutable, spec: Invalid value: "object": replicas may not decrease from 5]`,
      '1 object checked, 1 invalid',
    ],
  },
  {
    name: 'the same object as a create passes (transition rules skipped)',
    args: ['validate', '--crds', `${fx}/crds`, `${fx}/widget-new.json`],
    code: 0,
    stdout: ['1 object checked, 0 invalid'],
  },
  {
    name: 'standard input',
    args: ['validate', '--crds', `${fx}/crds`, '-'],
    stdin: readFileSync(join(root, fx, 'widget-old.yaml'), 'utf8'),
    code: 0,
    stdout: ['1 object checked, 0 invalid'],
  },
  {
    name: 'standard input with an invalid object',
    args: ['validate', '-'],
    stdin: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: default\nimmutable: "yes"\n',
    code: 1,
    stdout: ['<stdin>:6:12 (document 0): ConfigMap "x" is invalid: immutable: Invalid value: "string": immutable in body must be of type boolean: "string"', '1 object checked, 1 invalid'],
  },
  {
    name: 'custom resources without --crds',
    args: ['validate', `${fx}/widget-old.yaml`],
    code: 1,
    stdout: [`${fx}/widget-old.yaml:1:1 (document 0): no kind "Widget" is registered for version "example.cluster.io/v1" (custom resources need --crds DIR)`, '1 object checked, 1 invalid'],
  },
  {
    name: 'an invalid CRD is reported and its resources cannot be checked',
    args: ['validate', '--crds', `${fx}/bad-crds`, `${fx}/widget-old.yaml`],
    code: 1,
    stdout: [
      `${fx}/bad-crds/gizmos.example.cluster.io.yaml:23:15 (document 0): CustomResourceDefinition.apiextensions.cluster.io "gizmos.example.cluster.io" is invalid: spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields`,
      `${fx}/widget-old.yaml:1:1 (document 0): no kind "Widget" is registered for version "example.cluster.io/v1"`,
      '2 objects checked, 2 invalid',
    ],
  },
  {
    name: 'CRD manifests get the full CRD checks',
    args: ['validate', `${fx}/bad-crds/gizmos.example.cluster.io.yaml`, `${fx}/crds/widgets.example.cluster.io.yaml`, 'out/crds/storageclasses.storage.crd.cluster.io.yaml'],
    code: 1,
    stdout: [
      `${fx}/bad-crds/gizmos.example.cluster.io.yaml:23:15 (document 0): CustomResourceDefinition.apiextensions.cluster.io "gizmos.example.cluster.io" is invalid: spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields`,
      '3 objects checked, 1 invalid',
    ],
  },
  {
    name: 'unknown fields are warnings',
    args: ['validate', '--crds', `${fx}/crds`, `${fx}/unknown-fields.yaml`],
    code: 0,
    stdout: ['1 object checked, 0 invalid'],
    stderr: [`Warning: ${fx}/unknown-fields.yaml:8:3 (document 0): unknown field "spec.colour"`],
  },
  { name: 'usage error', args: ['validate'], code: 2, stdout: [] },
  { name: 'missing file', args: ['validate', `${fx}/nope.yaml`], code: 2, stdout: [] },
];

describe('clusterspec validate', () => {
  it.each(cases)('$name', ({ args, stdin, code, stdout, stderr }) => {
    const r = run(args, stdin);
    expect(r.stdout.split('\n').filter(Boolean)).toEqual(stdout);
    if (stderr) expect(r.stderr.split('\n').filter(Boolean)).toEqual(stderr);
    expect(r.code).toBe(code);
  });

  it('prints help', () => {
    const r = run(['validate', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: clusterspec validate \[--crds DIR\] \[--old FILE\] FILE\.\.\./);
  });
});
