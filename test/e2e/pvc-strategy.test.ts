// The PersistentVolumeClaim strategy over HTTP: a real server process (documented gate defaults:
// AnyVolumeDataSource and RecoverVolumeExpansionFailure on, CrossNamespaceVolumeDataSource off).

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
});
