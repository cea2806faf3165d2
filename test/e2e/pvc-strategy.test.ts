// The PersistentVolumeClaim strategy over HTTP: a real server process (documented gate defaults:
// AnyVolumeDataSource and RecoverVolumeExpansionFailure on, CrossNamespaceVolumeDataSource and
// VolumeAttributesClass off), and one with VolumeAttributesClass on.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer } from './harness.ts';

const NS = 'default';
const PVC = `/api/v1/namespaces/${NS}/persistentvolumeclaims`;
const POP = { apiGroup: 'populators.example.com', kind: 'Populator', name: 'p' };
const SRC = { kind: 'PersistentVolumeClaim', name: 'src' };

function pvc(name: string, spec: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: NS },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } }, ...spec },
  };
}

describe('PersistentVolumeClaim strategy over HTTP', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await TestServer.start('memory');
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('copies dataSource to dataSourceRef and back (rule 1), also on read', async () => {
    const a = await s.post(PVC, pvc('ds-a', { dataSource: SRC }));
    expect(a.status).toBe(201);
    expect(a.json.spec.dataSourceRef).toEqual(SRC);
    const b = await s.post(PVC, pvc('ds-b', { dataSourceRef: POP }));
    expect(b.status).toBe(201);
    expect(b.json.spec.dataSource).toEqual(POP);
    const got = await s.get(`${PVC}/ds-b`);
    expect(got.json.spec).toMatchObject({ dataSource: POP, dataSourceRef: POP });
  });

  it('drops a disallowed dataSource without error', async () => {
    for (const [name, ds] of [['ds-cm', { kind: 'ConfigMap', name: 'x' }], ['ds-pop', POP]] as const) {
      const r = await s.post(PVC, pvc(name, { dataSource: ds }));
      expect(r.status).toBe(201);
      expect(r.json.spec.dataSource).toBeUndefined();
      expect(r.json.spec.dataSourceRef).toBeUndefined();
    }
  });

  it('drops a namespaced dataSourceRef while CrossNamespaceVolumeDataSource is off (nothing copied)', async () => {
    const r = await s.post(PVC, pvc('ds-ns', { dataSourceRef: { ...POP, namespace: 'other' } }));
    expect(r.status).toBe(201);
    expect(r.json.spec.dataSource).toBeUndefined();
    expect(r.json.spec.dataSourceRef).toBeUndefined();
  });

  it('still rejects different dataSource and dataSourceRef (rule 3)', async () => {
    const r = await s.post(PVC, pvc('ds-mismatch', { dataSource: SRC, dataSourceRef: POP }));
    expect(r.status).toBe(422);
    expect(r.json.message).toContain('must match dataSourceRef');
  });

  it('an update without the filled-in dataSourceRef succeeds and keeps it', async () => {
    await s.post(PVC, pvc('ds-upd', { dataSource: SRC }));
    const cur = (await s.get(`${PVC}/ds-upd`)).json;
    delete cur.spec.dataSourceRef;
    cur.metadata.labels = { touched: 'yes' };
    const r = await s.put(`${PVC}/ds-upd`, cur);
    expect(r.status).toBe(200);
    expect(r.json.spec.dataSourceRef).toEqual(SRC);
  });

  it('lets a bound claim shrink above status.capacity, not to it', async () => {
    const c = await s.post(PVC, pvc('resize'));
    expect(c.status).toBe(201);
    const st = await s.put(`${PVC}/resize/status`, { ...c.json, status: { phase: 'Bound', capacity: { storage: '1Gi' } } });
    expect(st.status).toBe(200);

    const down = structuredClone(st.json);
    down.spec.resources.requests.storage = '1536Mi';
    const ok = await s.put(`${PVC}/resize`, down);
    expect(ok.status).toBe(200);
    expect(ok.json.spec.resources.requests.storage).toBe('1536Mi');

    const tooLow = structuredClone(ok.json);
    tooLow.spec.resources.requests.storage = '1024Mi';
    const bad = await s.put(`${PVC}/resize`, tooLow);
    expect(bad.status).toBe(422);
    expect(bad.json.reason).toBe('Invalid');
    expect(bad.json.message).toBe('PersistentVolumeClaim "resize" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than status.capacity');
    expect(bad.json.details.causes).toEqual([
      { reason: 'FieldValueForbidden', message: 'Forbidden: field can not be less than status.capacity', field: 'spec.resources.requests.storage' },
    ]);

    const up = structuredClone(ok.json);
    up.spec.resources.requests.storage = '3Gi';
    expect((await s.put(`${PVC}/resize`, up)).status).toBe(200);
  });

  it('VolumeAttributesClass off: volumeAttributesClassName is dropped on create and on update', async () => {
    const c = await s.post(PVC, pvc('vac-off', { volumeAttributesClassName: 'gold' }));
    expect(c.status).toBe(201);
    expect(c.json.spec.volumeAttributesClassName).toBeUndefined();
    const u = await s.put(`${PVC}/vac-off`, { ...c.json, spec: { ...c.json.spec, volumeAttributesClassName: 'gold' } });
    expect(u.status).toBe(200);
    expect(u.json.spec.volumeAttributesClassName).toBeUndefined();
  });

  it('VolumeAttributesClass off: /status drops currentVolumeAttributesClassName and modifyVolumeStatus', async () => {
    const c = await s.post(PVC, pvc('vac-status'));
    const st = await s.put(`${PVC}/vac-status/status`, {
      ...c.json,
      status: { phase: 'Bound', capacity: { storage: '2Gi' }, currentVolumeAttributesClassName: 'gold', modifyVolumeStatus: { status: 'InProgress', targetVolumeAttributesClassName: 'gold' } },
    });
    expect(st.status).toBe(200);
    expect(st.json.status).toEqual({ phase: 'Bound', capacity: { storage: '2Gi' } });
  });

  it('/status: reserved resource keys and resize states outside the documents are 422 with upstream causes', async () => {
    const c = await s.post(PVC, pvc('alloc'));
    const states = 'supported values: "ControllerResizeFailed", "ControllerResizeInProgress", "NodeResizeFailed", "NodeResizeInProgress", "NodeResizePending"';
    const cases: { name: string; status: Record<string, unknown>; causes: { field: string; message: string }[] }[] = [
      { name: 'unprefixed key', status: { allocatedResourceStatuses: { cpu: 'NodeResizePending' } }, causes: [{ field: 'status.allocatedResourceStatus', message: 'Unsupported value: "cpu": supported values: "storage"' }] },
      { name: 'cluster.io key', status: { allocatedResources: { 'cluster.io/gpu': '1' } }, causes: [{ field: 'status.allocatedResources', message: 'Unsupported value: "cluster.io/gpu": supported values: "storage"' }] },
      { name: 'unknown state', status: { allocatedResourceStatuses: { storage: 'ControllerResizeInfeasible' } }, causes: [{ field: 'status.allocatedResourceStatus', message: `Unsupported value: "storage": ${states}` }] },
    ];
    for (const k of cases) {
      const r = await s.put(`${PVC}/alloc/status`, { ...c.json, status: k.status });
      expect(r.status, k.name).toBe(422);
      expect(r.json.reason, k.name).toBe('Invalid');
      expect(r.json.details.causes, k.name).toEqual(k.causes.map((x) => ({ reason: 'FieldValueNotSupported', ...x })));
    }
    const ok = await s.put(`${PVC}/alloc/status`, {
      ...c.json,
      status: { allocatedResourceStatuses: { storage: 'ControllerResizeFailed', 'example.com/iops': 'NodeResizeInProgress' }, allocatedResources: { storage: '3Gi', 'example.com/iops': '100' } },
    });
    expect(ok.status).toBe(200);
    expect(ok.json.status.allocatedResourceStatuses).toEqual({ storage: 'ControllerResizeFailed', 'example.com/iops': 'NodeResizeInProgress' });
  });
});

describe('PersistentVolumeClaim with VolumeAttributesClass on', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await TestServer.start('memory', undefined, ['--feature-gates', 'VolumeAttributesClass=true']);
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('keeps volumeAttributesClassName and the status fields; a bound claim may change the class but not unset it', async () => {
    const c = await s.post(PVC, pvc('vac-on', { volumeAttributesClassName: 'gold' }));
    expect(c.status).toBe(201);
    expect(c.json.spec.volumeAttributesClassName).toBe('gold');
    const status = { phase: 'Bound', capacity: { storage: '2Gi' }, currentVolumeAttributesClassName: 'gold', modifyVolumeStatus: { status: 'Pending', targetVolumeAttributesClassName: 'silver' } };
    const st = await s.put(`${PVC}/vac-on/status`, { ...c.json, status });
    expect(st.status).toBe(200);
    expect(st.json.status).toEqual(status);
    const change = await s.put(`${PVC}/vac-on`, { ...st.json, spec: { ...st.json.spec, volumeAttributesClassName: 'silver' } });
    expect(change.status).toBe(200);
    expect(change.json.spec.volumeAttributesClassName).toBe('silver');
    const unset = structuredClone(change.json);
    delete unset.spec.volumeAttributesClassName;
    const bad = await s.put(`${PVC}/vac-on`, unset);
    expect(bad.status).toBe(422);
    expect(bad.json.details.causes).toContainEqual({ reason: 'FieldValueForbidden', message: 'Forbidden: update from non-nil value to nil is forbidden', field: 'spec.volumeAttributesClassName' });
  });
});
