// events.cluster.io/v1 Events against a real server (memory storage): the same objects as core v1
// Events (written through either API, read, listed and selected through both, as upstream's two
// Event APIs share one storage), upstream's events-API validation (ValidateEventCreate/Update), the
// field selectors of upstream's events/v1 field label conversion, upstream's Event table, a PUT of
// a missing Event creating it, server-side apply; and with the real kubectl: get, describe and
// events show events written through the events API.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer } from './harness.ts';
import { KUBECTL, runKubectl, type KubectlResult } from './kubectl.ts';

const CORE = '/api/v1/namespaces/default/events';
const API = '/apis/events.cluster.io/v1/namespaces/default/events';
const MICRO = '2026-01-01T10:00:00.000000Z';

interface Named {
  metadata: { name: string };
}

function apiEvent(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'events.cluster.io/v1',
    kind: 'Event',
    metadata: { name },
    eventTime: MICRO,
    reportingController: 'cluster.io/checker',
    reportingInstance: 'checker-0',
    action: 'Check',
    reason: 'Suspicious',
    regarding: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'api-cfg' },
    note: 'key a is suspicious',
    type: 'Warning',
    ...extra,
  };
}

const LEGACY = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'legacy.1' },
  involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'api-cfg' },
  reason: 'Updated',
  message: 'config changed',
  source: { component: 'cfg-watcher', host: 'node-1' },
  firstTimestamp: '2026-01-01T10:00:00Z',
  lastTimestamp: '2026-01-01T10:05:00Z',
  count: 3,
  type: 'Normal',
};

const names = (list: unknown): string[] => ((list as { items: Named[] }).items ?? []).map((i) => i.metadata.name).sort();

describe('events.cluster.io Events over HTTP', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await TestServer.start('memory');
    expect((await s.post('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'api-cfg' } })).status).toBe(201);
    expect((await s.post(API, apiEvent('api.1'))).status).toBe(201);
    expect((await s.post(CORE, LEGACY)).status).toBe(201);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('serves the group in discovery with the core short name', async () => {
    const r = await s.get('/apis/events.cluster.io/v1');
    expect(r.status).toBe(200);
    expect(r.json.resources).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'] })]));
  });

  it('an event written through events.cluster.io is a core v1 Event', async () => {
    const r = await s.get(`${CORE}/api.1`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      involvedObject: { kind: 'ConfigMap', name: 'api-cfg' },
      message: 'key a is suspicious',
      reportingComponent: 'cluster.io/checker',
      eventTime: MICRO,
    });
  });

  it('a core v1 event reads through events.cluster.io with the deprecated fields', async () => {
    const r = await s.get(`${API}/legacy.1`);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      apiVersion: 'events.cluster.io/v1',
      kind: 'Event',
      regarding: { kind: 'ConfigMap', name: 'api-cfg' },
      note: 'config changed',
      deprecatedSource: { component: 'cfg-watcher', host: 'node-1' },
      deprecatedCount: 3,
      deprecatedFirstTimestamp: '2026-01-01T10:00:00Z',
      deprecatedLastTimestamp: '2026-01-01T10:05:00Z',
    });
    expect(names((await s.get(API)).json)).toEqual(names((await s.get(CORE)).json));
  });

  // upstream's events/v1 field label conversion (AddFieldLabelConversionsForEvent)
  it.each([
    ['regarding.name=api-cfg', ['api.1', 'legacy.1']],
    ['regarding.kind=ConfigMap,type=Warning', ['api.1']],
    ['reason=Updated', ['legacy.1']],
    ['reportingController=cluster.io/checker', ['api.1']],
    ['source=cfg-watcher', ['legacy.1']],
    // source falls back to reportingController
    ['source=cluster.io/checker', ['api.1']],
    ['metadata.name=api.1', ['api.1']],
  ])('selects with %s', async (selector, want) => {
    const r = await s.get(`${API}?fieldSelector=${encodeURIComponent(selector)}`);
    expect(r.status, r.text).toBe(200);
    expect(names(r.json)).toEqual(want);
  });

  it("refuses the core names it does not convert, as upstream's events/v1 does", async () => {
    const r = await s.get(`${API}?fieldSelector=${encodeURIComponent('involvedObject.name=api-cfg')}`);
    expect(r.status).toBe(400);
    expect(r.json.message).toContain('field label not supported: involvedObject.name');
  });

  it.each([
    [
      'the deprecated core fields, a bad type and a short series',
      apiEvent('bad.1', { type: 'Info', deprecatedCount: 2, series: { count: 1, lastObservedTime: MICRO } }),
      [
        { reason: 'FieldValueInvalid', field: 'series.count', message: 'Invalid value: "": should be at least 2' },
        { reason: 'FieldValueInvalid', field: 'type', message: 'Invalid value: "": has invalid value: Info' },
        { reason: 'FieldValueInvalid', field: 'count', message: 'Invalid value: "": needs to be unset' },
      ],
    ],
    [
      'no reporting fields',
      { ...apiEvent('bad.2'), reportingController: undefined, reportingInstance: undefined, action: undefined },
      [
        { reason: 'FieldValueRequired', field: 'reportingController', message: 'Required value' },
        { reason: 'FieldValueInvalid', field: 'reportingController', message: 'Invalid value: "": name part must be non-empty' },
        expect.objectContaining({ field: 'reportingController', reason: 'FieldValueInvalid' }),
        { reason: 'FieldValueRequired', field: 'reportingInstance', message: 'Required value' },
        { reason: 'FieldValueRequired', field: 'action', message: 'Required value' },
      ],
    ],
  ])('refuses %s (upstream ValidateEventCreate)', async (_name, body, causes) => {
    const r = await s.post(API, body);
    expect(r.status, r.text).toBe(422);
    expect(r.json.details.causes).toEqual(causes);
  });

  it('keeps every event field immutable through events.cluster.io, and none through core v1', async () => {
    const cur = (await s.get(`${API}/api.1`)).json;
    const r = await s.put(`${API}/api.1`, { ...cur, note: 'changed' });
    expect(r.status).toBe(422);
    expect(r.json.details.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'message', message: 'Invalid value: "changed": field is immutable' }]);
    // a series heartbeat is allowed
    const beat = await s.put(`${API}/api.1`, { ...cur, series: { count: 2, lastObservedTime: '2026-01-01T10:01:00.000000Z' } });
    expect(beat.status, beat.text).toBe(200);
    const coreCur = (await s.get(`${CORE}/api.1`)).json;
    const legacy = await s.put(`${CORE}/api.1`, { ...coreCur, message: 'changed through core' });
    expect(legacy.status, legacy.text).toBe(200);
    expect((await s.get(`${API}/api.1`)).json.note).toBe('changed through core');
  });

  it.each([
    ['core v1', CORE, { ...LEGACY, metadata: { name: 'put.core' } }],
    ['events.cluster.io', API, apiEvent('put.events')],
  ])('a PUT of a missing %s Event creates it (upstream AllowCreateOnUpdate)', async (_name, path, body) => {
    const name = (body.metadata as { name: string }).name;
    expect((await s.get(`${path}/${name}`)).status).toBe(404);
    const r = await s.put(`${path}/${name}`, body);
    // upstream answers 201; runtime/http/handlers.ts answers every PUT 200 (the store reports `created`)
    expect([200, 201]).toContain(r.status);
    expect(r.json.metadata.uid).toEqual(expect.any(String));
    expect((await s.get(`${path}/${name}`)).json.metadata.uid).toBe(r.json.metadata.uid);
  });

  it('a PUT of a missing ConfigMap is still 404', async () => {
    const r = await s.put('/api/v1/namespaces/default/configmaps/nope', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nope' } });
    expect(r.status).toBe(404);
  });

  it("answers upstream's Event table through both APIs", async () => {
    const accept = { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
    const api = await s.request('GET', `${API}?fieldSelector=metadata.name=legacy.1`, { headers: accept });
    const core = await s.request('GET', `${CORE}?fieldSelector=metadata.name=legacy.1`, { headers: accept });
    const cols = (t: unknown): string[] => (t as { columnDefinitions: { name: string }[] }).columnDefinitions.map((c) => c.name);
    expect(cols(api.json)).toEqual(['Last Seen', 'Type', 'Reason', 'Object', 'Subobject', 'Source', 'Message', 'First Seen', 'Count', 'Name']);
    expect(cols(api.json)).toEqual(cols(core.json));
    const cells = (t: unknown): unknown[] => (t as { rows: { cells: unknown[] }[] }).rows[0].cells;
    // every cell but the ages, which move with the clock
    const stable = (c: unknown[]): unknown[] => [c[1], c[2], c[3], c[4], c[5], c[6], c[8], c[9]];
    expect(stable(cells(api.json))).toEqual(['Normal', 'Updated', 'configmap/api-cfg', '', 'cfg-watcher, node-1', 'config changed', 3, 'legacy.1']);
    expect(stable(cells(api.json))).toEqual(stable(cells(core.json)));
  });

  it('a strategic merge patch through events.cluster.io updates the series by its own schema', async () => {
    const r = await s.request('PATCH', `${API}/api.1`, {
      raw: JSON.stringify({ series: { count: 5, lastObservedTime: '2026-01-01T10:09:00.000000Z' } }),
      headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.json.series).toEqual({ count: 5, lastObservedTime: '2026-01-01T10:09:00.000000Z' });
    expect((await s.get(`${CORE}/api.1`)).json.series.count).toBe(5);
  });

  it('server-side apply through events.cluster.io records the manager at that version', async () => {
    const body = JSON.stringify(apiEvent('applied.1'));
    const r = await s.request('PATCH', `${API}/applied.1?fieldManager=tester`, { raw: body, headers: { 'Content-Type': 'application/apply-patch+yaml' } });
    expect(r.status, r.text).toBe(201);
    const mf = r.json.metadata.managedFields as { manager: string; apiVersion: string; fieldsV1: Record<string, unknown> }[];
    expect(mf).toEqual([expect.objectContaining({ manager: 'tester', apiVersion: 'events.cluster.io/v1' })]);
    expect(Object.keys(mf[0].fieldsV1)).toEqual(expect.arrayContaining(['f:note', 'f:regarding', 'f:reportingController']));
    expect((await s.get(`${CORE}/applied.1`)).json.message).toBe('key a is suspicious');
  });
});

if (!KUBECTL) console.warn('kubectl not found (/usr/bin/kubectl): skipping the kubectl events.cluster.io e2e tests');
const withKubectl = KUBECTL ? describe : describe.skip;

function ok(r: KubectlResult): string {
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
}

withKubectl('events.cluster.io Events with kubectl', () => {
  let s: TestServer;
  let work: string;
  const kubectl = (...args: string[]): Promise<KubectlResult> => runKubectl(s.kubeconfig, join(work, 'cache'), args);

  beforeAll(async () => {
    s = await TestServer.start('memory');
    work = mkdtempSync(join(tmpdir(), 'clusterspec-events-api-'));
    expect((await s.post('/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'api-cfg' } })).status).toBe(201);
    // kubectl describe looks events up by the object's uid too
    const uid = (await s.get('/api/v1/namespaces/default/configmaps/api-cfg')).json.metadata.uid as string;
    writeFileSync(
      join(work, 'objects.yaml'),
      `apiVersion: events.cluster.io/v1
kind: Event
metadata: {name: api-cfg.1, namespace: default}
eventTime: '${MICRO}'
reportingController: cluster.io/checker
reportingInstance: checker-0
action: Check
reason: Suspicious
regarding: {apiVersion: v1, kind: ConfigMap, namespace: default, name: api-cfg, uid: ${uid}}
note: key a is suspicious
type: Warning
`,
    );
    ok(await kubectl('create', '-f', join(work, 'objects.yaml')));
  });
  afterAll(async () => {
    await s?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('kubectl get events.events.cluster.io prints the Event table', async () => {
    const lines = ok(await kubectl('get', 'events.events.cluster.io')).trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
    expect(lines[0]).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(lines[1].slice(1)).toEqual(['Warning', 'Suspicious', 'configmap/api-cfg', 'key a is suspicious']);
  });

  it('kubectl describe configmap and kubectl events show an event written through the events API', async () => {
    const out = ok(await kubectl('describe', 'configmap', 'api-cfg'));
    expect(out.slice(out.indexOf('Events:'))).toMatch(/Warning\s+Suspicious\s+\S+\s+cluster\.io\/checker\s+key a is suspicious/);
    expect(ok(await kubectl('events', '--for', 'configmap/api-cfg'))).toContain('key a is suspicious');
  });

  it('kubectl apply --server-side of an events.cluster.io Event', async () => {
    const file = join(work, 'applied.yaml');
    writeFileSync(file, `apiVersion: events.cluster.io/v1
kind: Event
metadata: {name: api-cfg.2, namespace: default}
eventTime: '${MICRO}'
reportingController: cluster.io/checker
reportingInstance: checker-0
action: Check
reason: Applied
regarding: {apiVersion: v1, kind: ConfigMap, namespace: default, name: api-cfg}
note: applied
type: Normal
`);
    expect(ok(await kubectl('apply', '--server-side', '-f', file))).toContain('event.events.cluster.io/api-cfg.2 serverside-applied');
    expect(ok(await kubectl('get', 'events', 'api-cfg.2', '-o', 'jsonpath={.message}'))).toBe('applied');
  });
});
