// The PersistentVolumeClaim strategy: data source handling (doc1 2.4 rules 1 and 2, upstream
// DropDisabledFields / EnforceDataSourceBackwardsCompatibility / NormalizeDataSources) and the
// resize rule (conventions 9.2), table-driven, then in-process through a Store with chosen gates.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { namespaceResource } from '../../../out/routes/namespace.ts';
import { persistentVolumeClaimResource } from '../../../out/routes/persistentvolumeclaim.ts';
import * as validators from '../../../out/validators/index.ts';
import { rejection as rejects } from '../../errors/test-support.ts';
import { lazyValidator } from '../../http/bootstrap.ts';
import { MemoryStorage } from '../../storage/memory.ts';
import type { Obj } from '../../api/object.ts';
import { Registry } from '../registry.ts';
import type { Store } from '../store.ts';
import {
  createPersistentVolumeClaimStrategy, dropDisabledStatusFields, dropDisabledVolumeAttributesClass, prepareDataSources, validateResize,
  validateStatusUpdate, validateVolumeAttributesClassUpdate, type PvcGates,
} from './persistentvolumeclaim.ts';

const ON: PvcGates = { AnyVolumeDataSource: true, CrossNamespaceVolumeDataSource: false, RecoverVolumeExpansionFailure: true, VolumeAttributesClass: false };
const ALL: PvcGates = { ...ON, CrossNamespaceVolumeDataSource: true, VolumeAttributesClass: true };
const OFF: PvcGates = { AnyVolumeDataSource: false, CrossNamespaceVolumeDataSource: false, RecoverVolumeExpansionFailure: false, VolumeAttributesClass: false };
const VAC: PvcGates = { ...ON, VolumeAttributesClass: true };

const PVC_DS = { kind: 'PersistentVolumeClaim', name: 'src' };
const SNAP = { apiGroup: 'snapshot.storage.cluster.io', kind: 'VolumeSnapshot', name: 'snap' };
const POP = { apiGroup: 'populators.example.com', kind: 'Populator', name: 'p' };
const CM = { kind: 'ConfigMap', name: 'cm' };

describe('data sources (prepareDataSources)', () => {
  const cases: { name: string; gates: PvcGates; spec: Obj; old?: Obj; want: Obj }[] = [
    // rule 1: copy in either direction when one is empty
    { name: 'PVC dataSource is copied to dataSourceRef', gates: ON, spec: { dataSource: PVC_DS }, want: { dataSource: PVC_DS, dataSourceRef: PVC_DS } },
    { name: 'snapshot dataSource is copied with its apiGroup', gates: ON, spec: { dataSource: SNAP }, want: { dataSource: SNAP, dataSourceRef: SNAP } },
    { name: 'dataSourceRef without namespace is copied to dataSource', gates: ON, spec: { dataSourceRef: POP }, want: { dataSource: POP, dataSourceRef: POP } },
    { name: 'dataSourceRef with empty namespace is copied', gates: ON, spec: { dataSourceRef: { ...POP, namespace: '' } }, want: { dataSource: POP, dataSourceRef: { ...POP, namespace: '' } } },
    { name: 'both set: left alone (equality is a validator rule)', gates: ON, spec: { dataSource: PVC_DS, dataSourceRef: SNAP }, want: { dataSource: PVC_DS, dataSourceRef: SNAP } },
    { name: 'neither set: nothing added', gates: ON, spec: {}, want: {} },
    // rule 2: a namespaced dataSourceRef is not copied (needs CrossNamespaceVolumeDataSource to survive)
    { name: 'namespaced dataSourceRef is not copied', gates: ALL, spec: { dataSourceRef: { ...POP, namespace: 'other' } }, want: { dataSourceRef: { ...POP, namespace: 'other' } } },
    { name: 'namespaced dataSourceRef is dropped with CrossNamespaceVolumeDataSource off', gates: ON, spec: { dataSourceRef: { ...POP, namespace: 'other' } }, want: {} },
    { name: 'namespaced dataSourceRef kept on update when the stored claim has one', gates: ON, spec: { dataSourceRef: { ...POP, namespace: 'other' } }, old: { dataSourceRef: { ...POP, namespace: 'other' } }, want: { dataSourceRef: { ...POP, namespace: 'other' } } },
    // disallowed dataSource values are dropped silently
    { name: 'core non-PVC dataSource is dropped', gates: ON, spec: { dataSource: CM }, want: {} },
    { name: 'non-core object in dataSource alone is dropped', gates: ON, spec: { dataSource: POP }, want: {} },
    { name: 'VolumeSnapshot of another group is dropped', gates: ON, spec: { dataSource: { ...SNAP, apiGroup: 'snapshot.storage.k8s.io' } }, want: {} },
    { name: 'disallowed dataSource kept when dataSourceRef is set', gates: ON, spec: { dataSource: POP, dataSourceRef: POP }, want: { dataSource: POP, dataSourceRef: POP } },
    { name: 'disallowed dataSource kept on update when the stored claim has a data source', gates: ON, spec: { dataSource: CM }, old: { dataSource: CM }, want: { dataSource: CM, dataSourceRef: CM } },
    { name: 'disallowed dataSource dropped on update when the stored claim has none', gates: ON, spec: { dataSource: CM }, old: {}, want: {} },
    // AnyVolumeDataSource off: dataSourceRef dropped, no copy, dataSource still filtered
    { name: 'gate off: dataSourceRef dropped, then disallowed dataSource dropped', gates: OFF, spec: { dataSource: POP, dataSourceRef: POP }, want: {} },
    { name: 'gate off: PVC dataSource kept, not copied', gates: OFF, spec: { dataSource: PVC_DS }, want: { dataSource: PVC_DS } },
    { name: 'gate off: dataSourceRef kept on update when the stored claim has one', gates: OFF, spec: { dataSourceRef: POP }, old: { dataSourceRef: POP }, want: { dataSourceRef: POP } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const spec = structuredClone(c.spec);
      prepareDataSources(spec, c.old && structuredClone(c.old), c.gates);
      expect(spec).toEqual(c.want);
    });
  }
});

function claim(storage: string | undefined, status?: Obj): Obj {
  const requests: Obj = storage === undefined ? {} : { storage };
  return { spec: { resources: { requests } }, ...(status ? { status } : {}) };
}

describe('resize rule (validateResize)', () => {
  const LESS_PREV = 'spec.resources.requests.storage: Forbidden: field can not be less than previous value';
  const LESS_CAP = 'spec.resources.requests.storage: Forbidden: field can not be less than status.capacity';
  const cases: { name: string; gates: PvcGates; old: Obj; next: Obj; want?: string }[] = [
    { name: 'growth is fine', gates: OFF, old: claim('1Gi'), next: claim('2Gi') },
    { name: 'same value in other units is not a decrease', gates: OFF, old: claim('1Gi'), next: claim('1024Mi') },
    { name: 'gate off: any decrease is forbidden', gates: OFF, old: claim('2Gi', { capacity: { storage: '1Gi' } }), next: claim('1500Mi'), want: LESS_PREV },
    { name: 'gate off: decrease by one byte is forbidden', gates: OFF, old: claim('1Gi'), next: claim('1073741823'), want: LESS_PREV },
    { name: 'gate on: decrease above capacity is fine', gates: ON, old: claim('2Gi', { capacity: { storage: '1Gi' } }), next: claim('1500Mi') },
    { name: 'gate on: decrease to capacity is forbidden', gates: ON, old: claim('2Gi', { capacity: { storage: '1Gi' } }), next: claim('1024Mi'), want: LESS_CAP },
    { name: 'gate on: decrease below capacity is forbidden', gates: ON, old: claim('2Gi', { capacity: { storage: '1Gi' } }), next: claim('500Mi'), want: LESS_CAP },
    { name: 'gate on: no capacity counts as zero', gates: ON, old: claim('2Gi'), next: claim('1Gi') },
    { name: 'gate off but stored allocatedResources: treated as on', gates: OFF, old: claim('2Gi', { capacity: { storage: '1Gi' }, allocatedResources: { storage: '2Gi' } }), next: claim('1500Mi') },
    { name: 'gate off but stored allocatedResourceStatuses: treated as on', gates: OFF, old: claim('2Gi', { capacity: { storage: '1Gi' }, allocatedResourceStatuses: { storage: 'ControllerResizeFailed' } }), next: claim('1Gi'), want: LESS_CAP },
    { name: 'removed request counts as zero', gates: OFF, old: claim('1Gi'), next: claim(undefined), want: LESS_PREV },
    { name: 'malformed new value is left to the schema', gates: OFF, old: claim('1Gi'), next: claim('lots') },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const errs = validateResize(c.next, c.old, c.gates).map((e) => `${e.field}: ${e.message}`);
      expect(errs).toEqual(c.want ? [c.want] : []);
      if (c.want) expect(validateResize(c.next, c.old, c.gates)[0].reason).toBe('FieldValueForbidden');
    });
  }
});

describe('VolumeAttributesClass gate (dropDisabledVolumeAttributesClass, dropDisabledStatusFields)', () => {
  const specCases: { name: string; gates: PvcGates; spec: Obj; old?: Obj; want: Obj }[] = [
    { name: 'gate off: dropped on create', gates: ON, spec: { volumeAttributesClassName: 'gold' }, want: {} },
    { name: 'gate off: empty string dropped on create too', gates: ON, spec: { volumeAttributesClassName: '' }, want: {} },
    { name: 'gate off: dropped on update when the stored claim has none', gates: ON, spec: { volumeAttributesClassName: 'gold' }, old: {}, want: {} },
    { name: 'gate off: kept on update when the stored claim has one', gates: ON, spec: { volumeAttributesClassName: 'silver' }, old: { volumeAttributesClassName: 'gold' }, want: { volumeAttributesClassName: 'silver' } },
    { name: 'gate off: a stored "" counts as set', gates: ON, spec: { volumeAttributesClassName: 'gold' }, old: { volumeAttributesClassName: '' }, want: { volumeAttributesClassName: 'gold' } },
    { name: 'gate off: a stored null counts as unset', gates: ON, spec: { volumeAttributesClassName: 'gold' }, old: { volumeAttributesClassName: null }, want: {} },
    { name: 'gate on: kept on create', gates: VAC, spec: { volumeAttributesClassName: 'gold' }, want: { volumeAttributesClassName: 'gold' } },
  ];
  for (const c of specCases) {
    it(`spec: ${c.name}`, () => {
      const spec = structuredClone(c.spec);
      dropDisabledVolumeAttributesClass(spec, c.old, c.gates);
      expect(spec).toEqual(c.want);
    });
  }

  const MVS = { status: 'InProgress', targetVolumeAttributesClassName: 'gold' };
  const statusCases: { name: string; gates: PvcGates; status: Obj; old?: Obj; want: Obj }[] = [
    { name: 'gate off: both dropped when the stored status has neither', gates: ON, status: { phase: 'Bound', currentVolumeAttributesClassName: 'gold', modifyVolumeStatus: MVS }, old: { phase: 'Bound' }, want: { phase: 'Bound' } },
    { name: 'gate off: each kept when the stored status has it', gates: ON, status: { currentVolumeAttributesClassName: 'silver', modifyVolumeStatus: MVS }, old: { currentVolumeAttributesClassName: 'gold' }, want: { currentVolumeAttributesClassName: 'silver' } },
    { name: 'gate off: modifyVolumeStatus kept when stored', gates: ON, status: { modifyVolumeStatus: MVS }, old: { modifyVolumeStatus: { status: 'Pending' } }, want: { modifyVolumeStatus: MVS } },
    { name: 'gate on: nothing dropped', gates: VAC, status: { currentVolumeAttributesClassName: 'gold', modifyVolumeStatus: MVS }, want: { currentVolumeAttributesClassName: 'gold', modifyVolumeStatus: MVS } },
  ];
  for (const c of statusCases) {
    it(`status: ${c.name}`, () => {
      const status = structuredClone(c.status);
      dropDisabledStatusFields(status, c.old, c.gates);
      expect(status).toEqual(c.want);
    });
  }
});

describe('volumeAttributesClassName update with the gate off (validateVolumeAttributesClassUpdate)', () => {
  const FORBIDDEN = 'spec.volumeAttributesClassName: Forbidden: update is forbidden when the VolumeAttributesClass feature gate is disabled';
  const withVac = (v?: unknown): Obj => ({ spec: v === undefined ? {} : { volumeAttributesClassName: v } });
  const cases: { name: string; gates: PvcGates; old: Obj; next: Obj; want?: string }[] = [
    { name: 'unchanged value', gates: ON, old: withVac('gold'), next: withVac('gold') },
    { name: 'both unset (absent and null are both nil)', gates: ON, old: withVac(null), next: withVac() },
    { name: 'changed value', gates: ON, old: withVac('gold'), next: withVac('silver'), want: FORBIDDEN },
    { name: 'removed', gates: ON, old: withVac('gold'), next: withVac(), want: FORBIDDEN },
    { name: 'set to ""', gates: ON, old: withVac('gold'), next: withVac(''), want: FORBIDDEN },
    { name: 'gate on: a change is left to the other rules', gates: VAC, old: withVac('gold'), next: withVac('silver') },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const errs = validateVolumeAttributesClassUpdate(c.next, c.old, c.gates);
      expect(errs.map((e) => `${e.field}: ${e.message}`)).toEqual(c.want ? [c.want] : []);
      if (c.want) expect(errs[0].reason).toBe('FieldValueForbidden');
    });
  }
});

describe('status resource keys and resize states (validateStatusUpdate)', () => {
  const STATES = 'supported values: "ControllerResizeFailed", "ControllerResizeInProgress", "NodeResizeFailed", "NodeResizeInProgress", "NodeResizePending"';
  const st = (status: Obj): Obj => ({ status });
  const cases: { name: string; gates: PvcGates; next: Obj; old?: Obj; want: string[] }[] = [
    { name: 'storage with every documented state', gates: ON, next: st({ allocatedResourceStatuses: { storage: 'NodeResizePending', 'example.com/gpu': 'ControllerResizeFailed' } }), want: [] },
    { name: 'unprefixed key other than storage', gates: ON, next: st({ allocatedResourceStatuses: { memory: 'NodeResizePending' } }), want: ['status.allocatedResourceStatus: Unsupported value: "memory": supported values: "storage"'] },
    { name: 'cluster.io-prefixed key', gates: ON, next: st({ allocatedResourceStatuses: { 'cluster.io/storage': 'NodeResizePending' } }), want: ['status.allocatedResourceStatus: Unsupported value: "cluster.io/storage": supported values: "storage"'] },
    { name: 'a key holding cluster.io/ deeper in its prefix', gates: ON, next: st({ allocatedResourceStatuses: { 'x.cluster.io/a': 'NodeResizePending' } }), want: ['status.allocatedResourceStatus: Unsupported value: "x.cluster.io/a": supported values: "storage"'] },
    { name: 'unknown state: the key is the reported value', gates: ON, next: st({ allocatedResourceStatuses: { storage: 'Resizing' } }), want: [`status.allocatedResourceStatus: Unsupported value: "storage": ${STATES}`] },
    { name: "upstream's newer Infeasible state is not in the documents' vocabulary", gates: ON, next: st({ allocatedResourceStatuses: { storage: 'ControllerResizeInfeasible' } }), want: [`status.allocatedResourceStatus: Unsupported value: "storage": ${STATES}`] },
    { name: 'bad key and bad state: both', gates: ON, next: st({ allocatedResourceStatuses: { cpu: 'x' } }), want: ['status.allocatedResourceStatus: Unsupported value: "cpu": supported values: "storage"', `status.allocatedResourceStatus: Unsupported value: "cpu": ${STATES}`] },
    { name: 'a key that is not a qualified name is left to keySyntax', gates: ON, next: st({ allocatedResourceStatuses: { 'bad key': 'NodeResizePending' } }), want: [] },
    { name: 'allocatedResources: storage and a prefixed key', gates: ON, next: st({ allocatedResources: { storage: '2Gi', 'example.com/iops': '100' } }), want: [] },
    { name: 'allocatedResources: unprefixed key', gates: ON, next: st({ allocatedResources: { cpu: '1' } }), want: ['status.allocatedResources: Unsupported value: "cpu": supported values: "storage"'] },
    { name: 'gate off: not checked', gates: OFF, next: st({ allocatedResourceStatuses: { cpu: 'x' } }), old: st({}), want: [] },
    { name: 'gate off but the stored claim uses allocatedResources: checked', gates: OFF, next: st({ allocatedResources: { cpu: '1' } }), old: st({ allocatedResources: { storage: '1Gi' } }), want: ['status.allocatedResources: Unsupported value: "cpu": supported values: "storage"'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const errs = validateStatusUpdate(c.next, c.old ?? st({}), c.gates);
      expect(errs.map((e) => `${e.field}: ${e.message}`)).toEqual(c.want);
      for (const e of errs) expect(e.reason).toBe('FieldValueNotSupported');
    });
  }
});

// ------------------------------------------------------------------ through a Store

function pvc(name: string, spec: Obj = {}): Obj {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'default' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } }, ...spec },
  };
}

describe('PersistentVolumeClaim strategy in a Store', () => {
  let storage: MemoryStorage;
  let registry: Registry;
  const validator = lazyValidator(() => validators.PersistentVolumeClaim.createValidator());

  beforeEach(async () => {
    storage = new MemoryStorage({ autoCompaction: false });
    registry = new Registry(storage, [{ descriptor: namespaceResource, validator: lazyValidator(() => validators.Namespace.createValidator()) }]);
    await registry.init();
  });
  afterEach(async () => {
    await storage.close();
  });

  function store(gates: PvcGates): Store {
    return registry.newStore(persistentVolumeClaimResource, validator, createPersistentVolumeClaimStrategy({ ...gates }));
  }

  /** Creates a claim and marks it Bound with the given capacity through /status. */
  async function bound(s: Store, name: string, capacity: string, spec: Obj = {}): Promise<Obj> {
    await s.create('default', pvc(name, spec));
    const cur = await s.get('default', name);
    return (await s.update('default', name, { ...cur, status: { phase: 'Bound', capacity: { storage: capacity } } }, { subresource: 'status' })).object;
  }

  it('create normalizes and filters data sources (rule 1, silent drop)', async () => {
    const s = store(ON);
    const a = (await s.create('default', pvc('a', { dataSourceRef: POP }))).object;
    expect((a.spec as Obj).dataSource).toEqual(POP);
    const b = (await s.create('default', pvc('b', { dataSource: CM }))).object;
    expect(b.spec).not.toHaveProperty('dataSource');
    expect(b.spec).not.toHaveProperty('dataSourceRef');
  });

  it('rule 2 with CrossNamespaceVolumeDataSource: no copy, and a dataSource beside it is an error', async () => {
    const s = store(ALL);
    const ref = { ...POP, namespace: 'other' };
    const a = (await s.create('default', pvc('a', { dataSourceRef: ref }))).object;
    expect(a.spec).not.toHaveProperty('dataSource');
    expect((a.spec as Obj).dataSourceRef).toEqual(ref);
    const e = await rejects(s.create('default', pvc('b', { dataSource: PVC_DS, dataSourceRef: ref })));
    expect(e.code).toBe(422);
    expect(e.message).toContain('spec.dataSource');
    expect(e.message).toContain('may not be specified when dataSourceRef.namespace is specified');
  });

  it('an update that omits the filled-in dataSourceRef keeps the claim unchanged (no immutability error)', async () => {
    const s = store(ON);
    await s.create('default', pvc('a', { dataSource: PVC_DS }));
    const cur = await s.get('default', 'a');
    const body = structuredClone(cur);
    delete (body.spec as Obj).dataSourceRef;
    const after = (await s.update('default', 'a', body)).object;
    expect((after.spec as Obj).dataSourceRef).toEqual(PVC_DS);
  });

  it('a stored claim without dataSourceRef is normalized on update too', async () => {
    const s = store(OFF);
    await s.create('default', pvc('a', { dataSource: PVC_DS }));
    const cur = await s.get('default', 'a');
    expect(cur.spec).not.toHaveProperty('dataSourceRef');
    const on = store(ON);
    const after = (await on.update('default', 'a', structuredClone(cur))).object;
    expect((after.spec as Obj).dataSourceRef).toEqual(PVC_DS);
  });

  it('resize with RecoverVolumeExpansionFailure: above capacity ok, at capacity forbidden', async () => {
    const s = store(ON);
    const cur = await bound(s, 'a', '1Gi');
    const down = structuredClone(cur);
    ((down.spec as Obj).resources as Obj).requests = { storage: '1536Mi' };
    const ok = (await s.update('default', 'a', down)).object;
    expect(((ok.spec as Obj).resources as Obj).requests).toEqual({ storage: '1536Mi' });
    const tooLow = structuredClone(ok);
    ((tooLow.spec as Obj).resources as Obj).requests = { storage: '1Gi' };
    const e = await rejects(s.update('default', 'a', tooLow));
    expect(e.code).toBe(422);
    expect(e.message).toBe('PersistentVolumeClaim "a" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than status.capacity');
  });

  it('resize without RecoverVolumeExpansionFailure: any decrease forbidden, growth ok', async () => {
    const s = store(OFF);
    const cur = await bound(s, 'a', '1Gi');
    const down = structuredClone(cur);
    ((down.spec as Obj).resources as Obj).requests = { storage: '1536Mi' };
    const e = await rejects(s.update('default', 'a', down));
    expect(e.message).toBe('PersistentVolumeClaim "a" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than previous value');
    const up = structuredClone(cur);
    ((up.spec as Obj).resources as Obj).requests = { storage: '3Gi' };
    expect((await s.update('default', 'a', up)).object.spec).toMatchObject({ resources: { requests: { storage: '3Gi' } } });
  });
  it('VolumeAttributesClass off: the class is dropped on create; a stored one may not change', async () => {
    const s = store(ON);
    const a = (await s.create('default', pvc('a', { volumeAttributesClassName: 'gold' }))).object;
    expect(a.spec).not.toHaveProperty('volumeAttributesClassName');
    // A bound claim stored while the gate was on keeps its class; changing it is refused (an
    // unbound claim would also get the spec immutability error).
    const cur = await bound(store(VAC), 'b', '2Gi', { volumeAttributesClassName: 'gold' });
    const e = await rejects(s.update('default', 'b', { ...cur, spec: { ...(cur.spec as Obj), volumeAttributesClassName: 'silver' } }));
    expect(e.code).toBe(422);
    expect(e.message).toBe('PersistentVolumeClaim "b" is invalid: spec.volumeAttributesClassName: Forbidden: update is forbidden when the VolumeAttributesClass feature gate is disabled');
    expect((await s.update('default', 'b', { ...cur, metadata: { ...(cur.metadata as Obj), labels: { x: 'y' } } })).object.spec).toMatchObject({ volumeAttributesClassName: 'gold' });
  });

  it('VolumeAttributesClass off: /status drops currentVolumeAttributesClassName and modifyVolumeStatus', async () => {
    const s = store(ON);
    await s.create('default', pvc('a'));
    const cur = await s.get('default', 'a');
    const st = { phase: 'Bound', currentVolumeAttributesClassName: 'gold', modifyVolumeStatus: { status: 'Pending', targetVolumeAttributesClassName: 'gold' } };
    const off = (await s.update('default', 'a', { ...cur, status: st }, { subresource: 'status' })).object;
    expect(off.status).toEqual({ phase: 'Bound' });
    const on = (await store(VAC).update('default', 'a', { ...off, status: st }, { subresource: 'status' })).object;
    expect(on.status).toEqual(st);
  });

  it('/status refuses reserved resource keys and unknown resize states; the main endpoint ignores status', async () => {
    const s = store(ON);
    await s.create('default', pvc('a'));
    const cur = await s.get('default', 'a');
    const e = await rejects(s.update('default', 'a', { ...cur, status: { allocatedResourceStatuses: { storage: 'Resizing' }, allocatedResources: { memory: '1Gi' } } }, { subresource: 'status' }));
    expect(e.code).toBe(422);
    expect(e.message).toBe(
      'PersistentVolumeClaim "a" is invalid: [status.allocatedResourceStatus: Unsupported value: "storage": supported values: "ControllerResizeFailed", "ControllerResizeInProgress", "NodeResizeFailed", "NodeResizeInProgress", "NodeResizePending", status.allocatedResources: Unsupported value: "memory": supported values: "storage"]',
    );
    const ok = (await s.update('default', 'a', { ...cur, status: { allocatedResourceStatuses: { storage: 'NodeResizeInProgress' }, allocatedResources: { storage: '3Gi' } } }, { subresource: 'status' })).object;
    expect(ok.status).toMatchObject({ allocatedResourceStatuses: { storage: 'NodeResizeInProgress' } });
    // The main endpoint keeps the stored status, so a bad status in its body is not an error.
    const main = (await s.update('default', 'a', { ...ok, status: { allocatedResourceStatuses: { cpu: 'x' } } })).object;
    expect(main.status).toEqual(ok.status);
  });
});
