// kubectl's client-side validation against a real server process: kubectl reads /openapi/v2 as
// gnostic protobuf (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`) for a `kind: List`
// and for `explain --output=plaintext-openapiv2`, so these runs decode the server's protobuf with
// upstream's own Go decoder. Where kubectl is absent the tests are skipped with a visible warning.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer } from './harness.ts';
import { KUBECTL, runKubectl, type KubectlResult } from './kubectl.ts';

if (!KUBECTL) console.warn('kubectl not found (/usr/bin/kubectl): skipping the kubectl client-side validation e2e tests');
const maybe = KUBECTL ? describe : describe.skip;

const PROTOBUF_ACCEPT = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

const FILES: Record<string, string> = {
  'list.yaml': `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: listed
    namespace: default
  data:
    mode: fast
- apiVersion: v1
  kind: Secret
  metadata:
    name: listed
    namespace: default
  stringData:
    password: hunter2
`,
  'list-unknown.yaml': `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: refused
    namespace: default
  colour: blue
  data:
    mode: slow
`,
  'crd.yaml': `apiVersion: apiextensions.cluster.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.kv.example.cluster.io
spec:
  group: kv.example.cluster.io
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: What the widget should be.
            properties:
              size:
                type: integer
                minimum: 1
              color:
                type: string
                enum: [red, blue]
`,
  'widget-unknown.yaml': `apiVersion: kv.example.cluster.io/v1
kind: Widget
metadata:
  name: w1
  namespace: default
spec:
  size: 2
  shade: dark
`,
  'widget-list-unknown.yaml': `apiVersion: v1
kind: List
items:
- apiVersion: kv.example.cluster.io/v1
  kind: Widget
  metadata:
    name: w2
    namespace: default
  spec:
    size: 2
    shade: dark
`,
};

maybe('kubectl client-side validation (OpenAPI v2 protobuf)', () => {
  let s: TestServer;
  let work: string;

  const kubectl = (args: string[], timeoutMs?: number): Promise<KubectlResult> => runKubectl(s.kubeconfig, join(work, 'cache'), args, timeoutMs);
  const file = (name: string): string => join(work, name);

  beforeAll(async () => {
    s = await TestServer.start('memory');
    work = mkdtempSync(join(tmpdir(), 'clusterspec-kubectl-validation-'));
    for (const [name, text] of Object.entries(FILES)) writeFileSync(file(name), text);
  });
  afterAll(async () => {
    await s?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('serves /openapi/v2 as protobuf with the JSON document ETag, and 304 on If-None-Match', async () => {
    const json = await s.get('/openapi/v2', { headers: { Accept: 'application/json' } });
    const pb = await s.get('/openapi/v2', { headers: { Accept: PROTOBUF_ACCEPT } });
    expect(pb.status).toBe(200);
    expect(pb.headers['content-type']).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    expect(pb.headers.vary).toBe('Accept');
    expect(pb.headers.etag).toBe(json.headers.etag);
    // the Document begins with field 1 (swagger, length-delimited): tag 0x0a, length 3, "2.0"
    expect(pb.text.slice(0, 5)).toBe('\n\x032.0');
    const again = await s.get('/openapi/v2', { headers: { Accept: PROTOBUF_ACCEPT, 'If-None-Match': String(pb.headers.etag) } });
    expect(again.status).toBe(304);
    expect((await s.get('/openapi/v2', { headers: { Accept: 'application/yaml' } })).status).toBe(406);
  });

  it('kubectl create -f of a v1 List with a ConfigMap and a Secret passes validation and creates both', async () => {
    const r = await kubectl(['create', '-f', file('list.yaml')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('configmap/listed created\nsecret/listed created\n');
    expect((await s.get('/api/v1/namespaces/default/configmaps/listed')).json.data).toEqual({ mode: 'fast' });
  });

  it("a List whose ConfigMap has an unknown field is refused by kubectl's own validation, nothing is sent", async () => {
    const r = await kubectl(['create', '-f', file('list-unknown.yaml')]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`error validating "${file('list-unknown.yaml')}": error validating data: ValidationError(ConfigMap): unknown field "colour" in io.cluster.api.core.v1.ConfigMap`);
    expect((await s.get('/api/v1/namespaces/default/configmaps/refused')).status).toBe(404);
  });

  it('kubectl explain --output=plaintext-openapiv2 reads the protobuf document', async () => {
    const r = await kubectl(['explain', 'configmaps', '--output=plaintext-openapiv2']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^KIND:\s+ConfigMap\nVERSION:\s+v1\n/);
    expect(r.stdout).toMatch(/\n {3}binaryData\t<map\[string\]string>\n/);
    expect(r.stdout).toMatch(/\n {3}immutable\t<boolean>\n/);
  });

  it('custom resources: strict apply reports the unknown field; the v2 protobuf follows the CRD', async () => {
    const before = (await s.get('/openapi/v2', { headers: { Accept: PROTOBUF_ACCEPT } })).headers.etag;
    expect((await kubectl(['apply', '-f', file('crd.yaml')])).code).toBe(0);
    const w = await kubectl(['wait', '--for', 'condition=Established', '--timeout=20s', 'customresourcedefinition/widgets.kv.example.cluster.io'], 30_000);
    expect(w.code).toBe(0);
    expect((await s.get('/openapi/v2', { headers: { Accept: PROTOBUF_ACCEPT } })).headers.etag).not.toBe(before);

    const strict = await kubectl(['apply', '--validate=strict', '-f', file('widget-unknown.yaml')]);
    expect(strict.code).not.toBe(0);
    expect(strict.stderr).toMatch(/unknown field "spec\.shade"/);

    // a List sends a custom resource through client-side validation, against the CRD's schema in /openapi/v2
    const listed = await kubectl(['create', '-f', file('widget-list-unknown.yaml')]);
    expect(listed.code).not.toBe(0);
    expect(listed.stderr).toContain('error validating data: ValidationError(Widget.spec): unknown field "shade" in io.cluster.example.kv.v1.Widget.spec');

    const explain = await kubectl(['explain', 'widgets.spec', '--output=plaintext-openapiv2']);
    expect(explain.stderr).toBe('');
    expect(explain.stdout).toContain('What the widget should be.');
    expect(explain.stdout).toMatch(/\n {3}color\t<string>\n/);
    expect(explain.stdout).toMatch(/\n {3}size\t<integer>\n/);
  });
});
