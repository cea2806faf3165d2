// CustomResourceDefinitions that serve live custom resources, against a real server process:
// CRD checks and v1 defaulting, the controller's conditions (names in conflict, a conversion
// webhook caBundle that is not PEM), the full operation set on the custom resources through
// the generic Store, subresources, selectable fields, Table columns, discovery and OpenAPI, schema
// updates enforced at once, and deletion (finalizer, Terminating, instances deleted, endpoints gone).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePKI } from '../../runtime/admission/webhook-fixture.ts';
import { eventually, TestServer } from './harness.ts';

const GROUP = 'stable.example.cluster.io';
const CRDS = '/apis/apiextensions.cluster.io/v1/customresourcedefinitions';
const NAME = `widgets.${GROUP}`;
const NS = 'crtest';
const V1 = `/apis/${GROUP}/v1/namespaces/${NS}/widgets`;
const V2 = `/apis/${GROUP}/v2/namespaces/${NS}/widgets`;

function schema(maxReplicas = 10): object {
  return {
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          required: ['color'],
          properties: {
            color: { type: 'string', enum: ['red', 'green', 'blue'] },
            size: { type: 'string', default: 'M' },
            replicas: { type: 'integer', minimum: 0, maximum: maxReplicas },
            owner: { type: 'string', 'x-cluster-validations': [{ rule: 'self == oldSelf', message: 'owner is immutable' }] },
            min: { type: 'integer' },
            max: { type: 'integer' },
          },
          'x-cluster-validations': [
            { rule: '!has(self.min) || !has(self.max) || self.min <= self.max', messageExpression: "'min ' + string(self.min) + ' exceeds max ' + string(self.max)" },
          ],
        },
        status: {
          type: 'object',
          properties: { replicas: { type: 'integer' }, phase: { type: 'string' }, selector: { type: 'string' } },
        },
      },
    },
  };
}

function crdBody(maxReplicas = 10): object {
  const version = (name: string, storage: boolean): object => ({
    name,
    served: true,
    storage,
    ...(name === 'v1' ? { deprecated: true, deprecationWarning: 'stable.example.cluster.io/v1 Widget is deprecated; use v2' } : {}),
    schema: schema(maxReplicas),
    subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
    selectableFields: [{ jsonPath: '.spec.color' }],
    additionalPrinterColumns: [
      { name: 'Color', type: 'string', jsonPath: '.spec.color' },
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
      { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
    ],
  });
  return {
    apiVersion: 'apiextensions.cluster.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: NAME },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', shortNames: ['wd'], categories: ['all'] },
      versions: [version('v1', false), version('v2', true)],
    },
  };
}

describe('CustomResourceDefinitions serve custom resources (memory)', () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await TestServer.start('memory');
    expect((await s.post('/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('refuses an invalid CRD with 422 listing every problem, and serves nothing for it', async () => {
    const bad = crdBody() as { spec: { versions: { storage: boolean; schema: unknown }[] }; metadata: { name: string } };
    bad.metadata.name = `gadgets.${GROUP}`;
    (bad.spec as unknown as { names: object }).names = { plural: 'gadgets', kind: 'Gadget' };
    bad.spec.versions[0].storage = true; // two storage versions
    bad.spec.versions[1].schema = { openAPIV3Schema: { type: 'object', properties: { spec: { properties: { a: {} } } } } }; // not structural
    const r = await s.post(CRDS, bad);
    expect(r.status).toBe(422);
    const fields = (r.json.details.causes as { field: string }[]).map((c) => c.field);
    expect(fields).toContain('spec.versions');
    expect(fields.some((f) => f.startsWith('spec.versions[1].schema.openAPIV3Schema'))).toBe(true);
    expect((await s.get(`/apis/${GROUP}/v1/namespaces/${NS}/gadgets`)).status).toBe(404);
  });

  it('creates the CRD; the controller accepts names, establishes it, and the endpoints serve', async () => {
    const r = await s.post(CRDS, crdBody());
    expect(r.status).toBe(201);
    expect(r.json.status.storedVersions).toEqual(['v2']);
    // v1 defaulting: listKind from kind (singular was given); conversion None.
    expect(r.json.spec.names).toMatchObject({ singular: 'widget', listKind: 'WidgetList' });
    expect(r.json.spec.conversion).toEqual({ strategy: 'None' });
    const crd = await eventually(async () => {
      const g = await s.get(`${CRDS}/${NAME}`);
      const est = (g.json.status?.conditions ?? []).find((c: { type: string }) => c.type === 'Established');
      return est?.status === 'True' ? g.json : undefined;
    });
    const conds = Object.fromEntries((crd.status.conditions as { type: string; status: string; reason: string }[]).map((c) => [c.type, c]));
    expect(conds.NamesAccepted).toMatchObject({ status: 'True', reason: 'NoConflicts' });
    expect(conds.Established).toMatchObject({ status: 'True', reason: 'InitialNamesAccepted' });
    expect(crd.status.acceptedNames).toMatchObject({ plural: 'widgets', kind: 'Widget', shortNames: ['wd'], categories: ['all'] });
    const list = await s.get(V2);
    expect(list.status).toBe(200);
    expect(list.json).toMatchObject({ kind: 'WidgetList', apiVersion: `${GROUP}/v2`, items: [] });
  });

  it('create, get, list, watch; stored at the storage version, served at the requested one', async () => {
    const w = await s.startWatch(`${V2}?watch=true&timeoutSeconds=10`, 10_000, (ev) => ev.some((e) => e.object?.metadata?.name === 'w1'));
    const c = await s.post(V1, { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'w1' }, spec: { color: 'red', replicas: 2, owner: 'ann' }, status: { phase: 'ignored' } });
    expect(c.status).toBe(201);
    expect(c.headers.warning).toContain('stable.example.cluster.io/v1 Widget is deprecated; use v2');
    expect(c.json).toMatchObject({ apiVersion: `${GROUP}/v1`, kind: 'Widget', spec: { color: 'red', size: 'M', replicas: 2 }, metadata: { generation: 1 } });
    expect(c.json.status).toBeUndefined(); // status is discarded on create
    const g2 = await s.get(`${V2}/w1`);
    expect(g2.status).toBe(200);
    expect(g2.headers.warning).toBeUndefined();
    expect(g2.json.apiVersion).toBe(`${GROUP}/v2`);
    expect(g2.json.spec).toEqual(c.json.spec);
    const l1 = await s.get(V1);
    expect(l1.json.apiVersion).toBe(`${GROUP}/v1`);
    expect(l1.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['w1']);
    const all = await s.get(`/apis/${GROUP}/v2/widgets`);
    expect(all.json.items).toHaveLength(1);
    const events = (await w.result).events;
    expect(events.find((e) => e.object.metadata.name === 'w1')).toMatchObject({ type: 'ADDED', object: { apiVersion: `${GROUP}/v2`, kind: 'Widget' } });
  });

  it('patch (merge, JSON, apply); strategic merge patch is 415 listing the three types', async () => {
    const merge = await s.request('PATCH', `${V2}/w1`, { raw: JSON.stringify({ spec: { color: 'green' } }), headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(merge.status).toBe(200);
    expect(merge.json.spec.color).toBe('green');
    expect(merge.json.metadata.generation).toBe(2);
    const jp = await s.request('PATCH', `${V2}/w1`, { raw: JSON.stringify([{ op: 'replace', path: '/spec/replicas', value: 3 }]), headers: { 'Content-Type': 'application/json-patch+json' } });
    expect(jp.status).toBe(200);
    expect(jp.json.spec.replicas).toBe(3);
    const apply = await s.request('PATCH', `${V2}/w2?fieldManager=tester`, {
      raw: `apiVersion: ${GROUP}/v2\nkind: Widget\nmetadata:\n  name: w2\nspec:\n  color: blue\n`,
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
    });
    expect(apply.status).toBe(201);
    expect(apply.json.metadata.managedFields[0]).toMatchObject({ manager: 'tester', operation: 'Apply' });
    const reapply = await s.request('PATCH', `${V2}/w2?fieldManager=tester`, {
      raw: `apiVersion: ${GROUP}/v2\nkind: Widget\nmetadata:\n  name: w2\nspec:\n  color: red\n`,
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
    });
    expect(reapply.status).toBe(200);
    expect(reapply.json.spec.color).toBe('red');
    const smp = await s.request('PATCH', `${V2}/w1`, { raw: JSON.stringify({ spec: { color: 'red' } }), headers: { 'Content-Type': 'application/strategic-merge-patch+json' } });
    expect(smp.status).toBe(415);
    expect(smp.json.message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
  });

  it('update: stale resourceVersion 409, missing resourceVersion 422', async () => {
    const cur = (await s.get(`${V2}/w1`)).json;
    const stale = await s.put(`${V2}/w1`, { ...cur, metadata: { ...cur.metadata, resourceVersion: '1' }, spec: { ...cur.spec, size: 'L' } });
    expect(stale.status).toBe(409);
    const noRv = await s.put(`${V2}/w1`, { ...cur, metadata: { name: 'w1' } });
    expect(noRv.status).toBe(422);
    expect(noRv.json.message).toContain('metadata.resourceVersion: Invalid value: 0: must be specified for an update');
    const ok = await s.put(`${V2}/w1`, { ...cur, spec: { ...cur.spec, size: 'L' } });
    expect(ok.status).toBe(200);
    expect(ok.json.spec.size).toBe('L');
  });

  it('invalid objects: schema errors name the field; rules give their message and messageExpression; transition rules see oldSelf', async () => {
    const enumBad = await s.post(V2, { metadata: { name: 'bad1' }, spec: { color: 'pink' } });
    expect(enumBad.status).toBe(422);
    expect(enumBad.json.details.causes.map((c: { field: string }) => c.field)).toContain('spec.color');
    expect(enumBad.json.message).toContain('Widget.stable.example.cluster.io "bad1" is invalid');
    const minMax = await s.post(V2, { metadata: { name: 'bad2' }, spec: { color: 'red', min: 5, max: 2 } });
    expect(minMax.status).toBe(422);
    expect(minMax.json.message).toContain('min 5 exceeds max 2');
    const owner = await s.request('PATCH', `${V2}/w1`, { raw: JSON.stringify({ spec: { owner: 'bob' } }), headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(owner.status).toBe(422);
    expect(owner.json.message).toContain('owner is immutable');
    const missing = await s.post(V2, { metadata: { name: 'bad3' }, spec: {} });
    expect(missing.status).toBe(422);
    expect(missing.json.details.causes.map((c: { field: string }) => c.field)).toContain('spec.color');
  });

  it('status subresource: main endpoint ignores status, /status ignores everything else', async () => {
    const cur = (await s.get(`${V2}/w1`)).json;
    const st = await s.put(`${V2}/w1/status`, { ...cur, metadata: { ...cur.metadata, labels: { x: 'y' } }, spec: { ...cur.spec, color: 'blue' }, status: { replicas: 1, phase: 'Ready', selector: 'app=w' } });
    expect(st.status).toBe(200);
    expect(st.json.status).toEqual({ replicas: 1, phase: 'Ready', selector: 'app=w' });
    expect(st.json.spec.color).toBe(cur.spec.color);
    expect(st.json.metadata.labels).toBeUndefined();
    expect(st.json.metadata.generation).toBe(cur.metadata.generation);
    const main = await s.request('PATCH', `${V2}/w1`, { raw: JSON.stringify({ status: { phase: 'Hacked' } }), headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(main.status).toBe(200);
    expect(main.json.status.phase).toBe('Ready');
    const gs = await s.get(`${V2}/w1/status`);
    expect(gs.json.status.phase).toBe('Ready');
  });

  it('scale subresource: GET gives autoscaling/v1 Scale; PUT and PATCH set spec replicas', async () => {
    const sc = await s.get(`${V2}/w1/scale`);
    expect(sc.status).toBe(200);
    expect(sc.json).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'w1', namespace: NS }, spec: { replicas: 3 }, status: { replicas: 1, selector: 'app=w' } });
    const put = await s.put(`${V2}/w1/scale`, { ...sc.json, spec: { replicas: 5 } });
    expect(put.status).toBe(200);
    expect(put.json.spec.replicas).toBe(5);
    const patch = await s.request('PATCH', `${V2}/w1/scale`, { raw: JSON.stringify({ spec: { replicas: 6 } }), headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(patch.status).toBe(200);
    expect((await s.get(`${V2}/w1`)).json.spec.replicas).toBe(6);
    const tooMany = await s.request('PATCH', `${V2}/w1/scale`, { raw: JSON.stringify({ spec: { replicas: 60 } }), headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(tooMany.status).toBe(422);
    expect(tooMany.json.message).toContain('spec.replicas');
  });

  it('field selectors on selectable fields; unknown fields refused', async () => {
    const red = await s.get(`${V2}?fieldSelector=spec.color%3Dred`);
    expect(red.status).toBe(200);
    expect(red.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['w2']);
    const notRed = await s.get(`${V2}?fieldSelector=spec.color!%3Dred`);
    expect(notRed.json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['w1']);
    expect((await s.get(`${V2}?fieldSelector=spec.size%3DM`)).status).toBe(400);
  });

  it('Table output has the printer columns', async () => {
    const t = await s.get(V2, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(t.status).toBe(200);
    expect(t.json.kind).toBe('Table');
    expect(t.json.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Color', 'Replicas', 'Age']);
    const row = t.json.rows.find((r: { cells: unknown[] }) => r.cells[0] === 'w1');
    expect(row.cells[1]).toBe('green');
    expect(row.cells[2]).toBe(6);
    expect(row.cells[3]).toMatch(/^\d+s$/);
  });

  it('discovery (legacy and aggregated) and OpenAPI list the custom resource', async () => {
    const group = await s.get(`/apis/${GROUP}`);
    expect(group.json.versions.map((v: { version: string }) => v.version)).toEqual(['v2', 'v1']);
    expect(group.json.preferredVersion.version).toBe('v2');
    const rl = await s.get(`/apis/${GROUP}/v2`);
    const byName = Object.fromEntries((rl.json.resources as { name: string }[]).map((r) => [r.name, r]));
    expect(byName.widgets).toMatchObject({ kind: 'Widget', namespaced: true, shortNames: ['wd'], categories: ['all'], singularName: 'widget' });
    expect(byName['widgets/status']).toMatchObject({ kind: 'Widget', verbs: ['get', 'patch', 'update'] });
    expect(byName['widgets/scale']).toMatchObject({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
    const agg = await s.get('/apis', { headers: { Accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' } });
    const item = (agg.json.items as { metadata: { name: string }; versions: { version: string; resources: { resource: string; subresources: { subresource: string; responseKind: object }[] }[] }[] }[]).find(
      (i) => i.metadata.name === GROUP,
    );
    expect(item?.versions.map((v) => v.version)).toEqual(['v2', 'v1']);
    const res = item?.versions[0].resources.find((r) => r.resource === 'widgets');
    expect(res?.subresources.find((x) => x.subresource === 'scale')?.responseKind).toEqual({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
    const index = await s.get('/openapi/v3');
    expect(index.json.paths[`apis/${GROUP}/v2`]).toBeDefined();
    const doc = await s.get(index.json.paths[`apis/${GROUP}/v2`].serverRelativeURL);
    expect(doc.status).toBe(200);
    const widget = doc.json.components.schemas[`io.cluster.example.stable.v2.Widget`];
    expect(widget.properties.spec.properties.color.enum).toEqual(['red', 'green', 'blue']);
    expect(widget['x-kubernetes-group-version-kind']).toEqual([{ group: GROUP, kind: 'Widget', version: 'v2' }]);
    const v2 = await s.get('/openapi/v2');
    expect(v2.json.definitions[`io.cluster.example.stable.v1.Widget`]).toBeDefined();
  });

  it('updating the CRD schema is enforced at once', async () => {
    const cur = (await s.get(`${CRDS}/${NAME}`)).json;
    const next = crdBody(4) as { metadata: object; spec: object };
    const u = await s.put(`${CRDS}/${NAME}`, { ...next, metadata: cur.metadata });
    expect(u.status).toBe(200);
    expect(u.json.metadata.generation).toBe(2);
    const r = await s.post(V2, { metadata: { name: 'big' }, spec: { color: 'red', replicas: 5 } });
    expect(r.status).toBe(422);
    expect(r.json.details.causes.map((c: { field: string }) => c.field)).toContain('spec.replicas');
  });

  it('a CRD whose names are taken is not established and not served', async () => {
    const other = crdBody() as { metadata: { name: string }; spec: { names: object } };
    other.metadata.name = `gizmos.${GROUP}`;
    other.spec.names = { plural: 'gizmos', kind: 'Widget' };
    const created = await s.post(CRDS, other);
    expect(created.status).toBe(201);
    // Defaulted from kind Widget: singular widget and listKind WidgetList, both taken as well.
    expect(created.json.spec.names).toEqual({ plural: 'gizmos', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' });
    const crd = await eventually(async () => {
      const g = await s.get(`${CRDS}/gizmos.${GROUP}`);
      const na = (g.json.status?.conditions ?? []).find((c: { type: string }) => c.type === 'NamesAccepted');
      return na ? g.json : undefined;
    });
    const conds = Object.fromEntries((crd.status.conditions as { type: string }[]).map((c) => [c.type, c]));
    // Upstream's naming controller checks plural, singular, shortNames, kind, listKind in turn and
    // reports the last conflict it finds.
    expect(conds.NamesAccepted).toMatchObject({ status: 'False', reason: 'ListKindConflict', message: '"WidgetList" is already in use' });
    expect(crd.status.acceptedNames).toEqual({ plural: 'gizmos', kind: '' });
    expect(conds.Established).toMatchObject({ status: 'False', reason: 'NotAccepted' });
    expect((await s.get(`/apis/${GROUP}/v2/namespaces/${NS}/gizmos`)).status).toBe(404);
    expect((await s.delete(`${CRDS}/gizmos.${GROUP}`)).status).toBe(200);
  });

  it('deleting the CRD: finalizer, Terminating, every custom resource deleted, endpoints gone', async () => {
    const d = await s.delete(`${CRDS}/${NAME}`);
    expect(d.status).toBe(200);
    expect(d.json.metadata.finalizers).toContain('customresourcecleanup.apiextensions.cluster.io');
    expect(d.json.status.conditions.find((c: { type: string }) => c.type === 'Terminating')).toMatchObject({ status: 'True', reason: 'InstanceDeletionPending' });
    await eventually(async () => (await s.get(`${CRDS}/${NAME}`)).status === 404);
    expect((await s.get(V2)).status).toBe(404);
    expect((await s.get(`${V2}/w1`)).status).toBe(404);
    expect((await s.get(`/apis/${GROUP}/v2`)).status).toBe(404);
    const groups = await s.get('/apis');
    expect(groups.json.groups.map((g: { name: string }) => g.name)).not.toContain(GROUP);
    expect((await s.get('/openapi/v3')).json.paths[`apis/${GROUP}/v2`]).toBeUndefined();
    // Recreating the CRD serves an empty collection: the old custom resources are gone.
    expect((await s.post(CRDS, crdBody())).status).toBe(201);
    const list = await eventually(async () => {
      const r = await s.get(V2);
      return r.status === 200 ? r.json : undefined;
    });
    expect(list.items).toEqual([]);
  });
});

describe('CustomResourceDefinitions in storage at start (sqlite)', () => {
  it('a restarted server serves the custom resources of the CRDs it finds', async () => {
    let s = await TestServer.start('sqlite');
    const dir = s.dataDir;
    try {
      expect((await s.post('/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
      expect((await s.post(CRDS, crdBody())).status).toBe(201);
      await eventually(async () => (await s.get(V2)).status === 200);
      expect((await s.post(V2, { metadata: { name: 'kept' }, spec: { color: 'blue' } })).status).toBe(201);
      await s.stop(false);
      s = await TestServer.start('sqlite', dir, [], true);
      const g = await s.get(`${V1}/kept`);
      expect(g.status).toBe(200);
      expect(g.json).toMatchObject({ apiVersion: `${GROUP}/v1`, spec: { color: 'blue', size: 'M' } });
      expect((await s.get(`/apis/${GROUP}/v2`)).status).toBe(200);
    } finally {
      await s.stop();
    }
  }, 60_000);
});

describe('CustomResourceDefinition names in conflict, and rule reasons on custom resources (memory)', () => {
  const G = 'names.example.cluster.io';
  const NSX = 'crnames';
  let s: TestServer;

  function crdFor(names: { plural: string; singular: string; kind: string; listKind: string; shortNames?: string[] }, openAPIV3Schema: object = { type: 'object', 'x-cluster-preserve-unknown-fields': true }): object {
    return {
      apiVersion: 'apiextensions.cluster.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${names.plural}.${G}` },
      spec: { group: G, scope: 'Namespaced', names, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema } }] },
    };
  }
  type Cond = { type: string; status: string; reason: string; message: string };
  async function conditionsOf(name: string, type: string): Promise<{ crd: { status: { acceptedNames: object } }; conds: Record<string, Cond> }> {
    return eventually(async () => {
      const g = await s.get(`${CRDS}/${name}`);
      const conds = Object.fromEntries(((g.json.status?.conditions ?? []) as Cond[]).map((c) => [c.type, c]));
      return conds[type] ? { crd: g.json, conds } : undefined;
    });
  }

  beforeAll(async () => {
    s = await TestServer.start('memory');
    expect((await s.post('/api/v1/namespaces', { metadata: { name: NSX } })).status).toBe(201);
    expect((await s.post(CRDS, crdFor({ plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] }))).status).toBe(201);
    await eventually(async () => (await s.get(`/apis/${G}/v1/namespaces/${NSX}/widgets`)).status === 200);
  });
  afterAll(async () => {
    await s?.stop();
  });

  const conflicts = [
    {
      name: 'kind taken',
      names: { plural: 'gizmos', singular: 'gizmo', kind: 'Widget', listKind: 'GizmoList' },
      reason: 'KindConflict',
      message: '"Widget" is already in use',
      accepted: { plural: 'gizmos', singular: 'gizmo', kind: '', listKind: 'GizmoList' },
    },
    {
      name: 'kind and list kind taken (the last conflict is reported)',
      names: { plural: 'doohickeys', singular: 'doohickey', kind: 'Widget', listKind: 'WidgetList' },
      reason: 'ListKindConflict',
      message: '"WidgetList" is already in use',
      accepted: { plural: 'doohickeys', singular: 'doohickey', kind: '' },
    },
    {
      name: 'plural taken by a short name',
      names: { plural: 'wd', singular: 'thing', kind: 'Thing', listKind: 'ThingList' },
      reason: 'PluralConflict',
      message: '"wd" is already in use',
      accepted: { plural: '', singular: 'thing', kind: 'Thing', listKind: 'ThingList' },
    },
    {
      name: 'short name taken',
      names: { plural: 'sprockets', singular: 'sprocket', kind: 'Sprocket', listKind: 'SprocketList', shortNames: ['sp', 'widget'] },
      reason: 'ShortNamesConflict',
      message: '"widget" is already in use',
      accepted: { plural: 'sprockets', singular: 'sprocket', kind: 'Sprocket', listKind: 'SprocketList' },
    },
  ];
  for (const c of conflicts) {
    it(`${c.name}: NamesAccepted False ${c.reason}, acceptedNames written, not established, not served`, async () => {
      expect((await s.post(CRDS, crdFor(c.names))).status).toBe(201);
      const { crd, conds } = await conditionsOf(`${c.names.plural}.${G}`, 'NamesAccepted');
      expect(conds.NamesAccepted).toMatchObject({ status: 'False', reason: c.reason, message: c.message });
      expect(conds.Established).toMatchObject({ status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' });
      expect(crd.status.acceptedNames).toEqual(c.accepted);
      expect((await s.get(`/apis/${G}/v1/namespaces/${NSX}/${c.names.plural}`)).status).toBe(404);
      const rl = await s.get(`/apis/${G}/v1`);
      expect((rl.json.resources as { name: string }[]).map((r) => r.name)).not.toContain(c.names.plural);
    });
  }

  it('once the other CRD is gone, the conflicting one is accepted, established and served', async () => {
    // doohickeys wants kind Widget too: removed first, so gizmos is the only claimant.
    for (const name of [`doohickeys.${G}`, `widgets.${G}`]) {
      expect((await s.delete(`${CRDS}/${name}`)).status).toBe(200);
      await eventually(async () => (await s.get(`${CRDS}/${name}`)).status === 404);
    }
    const { crd, conds } = await eventually(async () => {
      const r = await conditionsOf(`gizmos.${G}`, 'Established');
      return r.conds.Established.status === 'True' ? r : undefined;
    });
    expect(conds.NamesAccepted).toMatchObject({ status: 'True', reason: 'NoConflicts' });
    expect(crd.status.acceptedNames).toEqual({ plural: 'gizmos', singular: 'gizmo', kind: 'Widget', listKind: 'GizmoList' });
    await eventually(async () => (await s.get(`/apis/${G}/v1/namespaces/${NSX}/gizmos`)).status === 200);
  });

  it('x-cluster-validations reason: each gives its cause reason; the response is always 422 Invalid (apierrors.NewInvalid)', async () => {
    const rule = (field: string, reason: string): object => ({ rule: `!has(self.${field}) || self.${field} != 'bad'`, message: `${field} is bad`, reason, fieldPath: `.${field}` });
    const openAPIV3Schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: { inv: { type: 'string' }, forb: { type: 'string' }, req: { type: 'string' }, dup: { type: 'string' }, none: { type: 'string' } },
          'x-cluster-validations': [
            rule('inv', 'FieldValueInvalid'),
            rule('forb', 'FieldValueForbidden'),
            rule('req', 'FieldValueRequired'),
            rule('dup', 'FieldValueDuplicate'),
            { rule: "!has(self.none) || self.none != 'bad'", message: 'none is bad', fieldPath: '.none' },
          ],
        },
      },
    };
    expect((await s.post(CRDS, crdFor({ plural: 'rulers', singular: 'ruler', kind: 'Ruler', listKind: 'RulerList' }, openAPIV3Schema))).status).toBe(201);
    const RULERS = `/apis/${G}/v1/namespaces/${NSX}/rulers`;
    await eventually(async () => (await s.get(RULERS)).status === 200);

    const cases = [
      { field: 'forb', reason: 'FieldValueForbidden', message: /^Forbidden: forb is bad$/ },
      { field: 'req', reason: 'FieldValueRequired', message: /^Required value: req is bad$/ },
      { field: 'inv', reason: 'FieldValueInvalid', message: /^Invalid value: .*: inv is bad$/ },
      // Duplicate carries the value only (field.Duplicate has no detail).
      { field: 'dup', reason: 'FieldValueDuplicate', message: /^Duplicate value: "[^"]*"$/ },
      { field: 'none', reason: 'FieldValueInvalid', message: /^Invalid value: .*: none is bad$/ },
    ];
    for (const c of cases) {
      const r = await s.post(RULERS, { apiVersion: `${G}/v1`, kind: 'Ruler', metadata: { name: `r-${c.field}` }, spec: { [c.field]: 'bad' } });
      expect(r.status, c.field).toBe(422);
      expect(r.json, c.field).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422, details: { name: `r-${c.field}`, group: G, kind: 'Ruler' } });
      expect(r.json.details.causes, c.field).toHaveLength(1);
      expect(r.json.details.causes[0], c.field).toMatchObject({ reason: c.reason, field: `spec.${c.field}` });
      expect(r.json.details.causes[0].message, c.field).toMatch(c.message);
      expect(r.json.message, c.field).toBe(`Ruler.${G} "r-${c.field}" is invalid: spec.${c.field}: ${r.json.details.causes[0].message}`);
    }
    // Several failures: still 422 Invalid whatever the first rule's reason; causes in rule order.
    const all = await s.post(RULERS, { apiVersion: `${G}/v1`, kind: 'Ruler', metadata: { name: 'r-all' }, spec: { forb: 'bad', req: 'bad', inv: 'bad', dup: 'bad' } });
    expect(all.status).toBe(422);
    expect(all.json.reason).toBe('Invalid');
    expect((all.json.details.causes as { reason: string }[]).map((x) => x.reason)).toEqual(['FieldValueInvalid', 'FieldValueForbidden', 'FieldValueRequired', 'FieldValueDuplicate']);
  });
});

describe('a conversion webhook caBundle that is not PEM (memory)', () => {
  const G = 'cabundle.example.cluster.io';
  const NAME_CA = `gadgets.${G}`;
  const LIST = `/apis/${G}/v1/gadgets`;
  const pki = makePKI();
  let s: TestServer;

  function crdWith(caBundle: string, metadata: object = { name: NAME_CA }): object {
    return {
      apiVersion: 'apiextensions.cluster.io/v1',
      kind: 'CustomResourceDefinition',
      metadata,
      spec: {
        group: G,
        scope: 'Cluster',
        names: { plural: 'gadgets', kind: 'Gadget' },
        conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { namespace: 'default', name: 'example' }, caBundle } } },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-cluster-preserve-unknown-fields': true } } }],
      },
    };
  }
  type Cond = { type: string; status: string; reason: string; message: string };
  const condsOf = (crd: { status?: { conditions?: Cond[] } }): Record<string, Cond> => Object.fromEntries((crd.status?.conditions ?? []).map((c) => [c.type, c]));

  beforeAll(async () => {
    s = await TestServer.start('memory');
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('is accepted on create; Established False InvalidCABundle; not served nor discovered', async () => {
    const r = await s.post(CRDS, crdWith('Cg=='));
    expect(r.status).toBe(201);
    // ServiceReference port defaults to 443 (SetDefaults_ServiceReference).
    expect(r.json.spec.conversion.webhook.clientConfig.service).toEqual({ namespace: 'default', name: 'example', port: 443 });
    const crd = await eventually(async () => {
      const g = await s.get(`${CRDS}/${NAME_CA}`);
      return condsOf(g.json).Established?.reason === 'InvalidCABundle' ? g.json : undefined;
    });
    expect(condsOf(crd)).toMatchObject({
      NamesAccepted: { status: 'True', reason: 'NoConflicts' },
      Established: { status: 'False', reason: 'InvalidCABundle', message: 'The conversion webhook CABundle is invalid' },
    });
    expect((await s.get(LIST)).status).toBe(404);
    expect((await s.get('/apis')).json.groups.map((g: { name: string }) => g.name)).not.toContain(G);
    // It stays so: the naming controller does not put Installing back.
    await new Promise((r) => setTimeout(r, 500));
    const later = await s.get(`${CRDS}/${NAME_CA}`);
    expect(later.json.metadata.resourceVersion).toBe(crd.metadata.resourceVersion);
  });

  it('a valid caBundle establishes and serves it; then an invalid one is refused (422)', async () => {
    const cur = (await s.get(`${CRDS}/${NAME_CA}`)).json;
    const u = await s.put(`${CRDS}/${NAME_CA}`, crdWith(pki.caBundle, cur.metadata));
    expect(u.status).toBe(200);
    await eventually(async () => condsOf((await s.get(`${CRDS}/${NAME_CA}`)).json).Established?.status === 'True');
    const list = await eventually(async () => {
      const l = await s.get(LIST);
      return l.status === 200 ? l.json : undefined;
    });
    expect(list).toMatchObject({ kind: 'GadgetList', items: [] });

    const est = (await s.get(`${CRDS}/${NAME_CA}`)).json;
    const bad = await s.put(`${CRDS}/${NAME_CA}`, crdWith('Cg==', est.metadata));
    expect(bad.status).toBe(422);
    expect(bad.json.details.causes).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.conversion.webhook.clientConfig.caBundle', message: 'Invalid value: "Cg==": unable to load root certificates: unable to parse bytes as PEM block' },
    ]);
    expect((await s.get(LIST)).status).toBe(200);
  });
});
