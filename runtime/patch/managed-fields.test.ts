import { describe, expect, it } from 'vitest';
import { FieldSet, pathToString } from './fieldpath.ts';
import {
  decodeManagedFields,
  managerFromUserAgent,
  updateManagedFields,
  validateFieldManager,
  validateManagedFields,
  type ManagedFieldsEntry,
  type UpdateOptions,
} from './managed-fields.ts';
import { toFieldSet } from './typed.ts';
import { defs, kind } from './test-defs.ts';

const T0 = '2026-07-01T10:00:00Z';
const T1 = '2026-07-01T10:05:00Z';
type Obj = Record<string, unknown>;

const entry = (manager: string, operation: 'Apply' | 'Update', fieldsV1: Obj, extra: Partial<ManagedFieldsEntry> = {}): ManagedFieldsEntry => ({
  manager,
  operation,
  apiVersion: 'v1',
  time: T0,
  fieldsType: 'FieldsV1',
  fieldsV1,
  ...extra,
});

const cm = (data: Obj, mf?: ManagedFieldsEntry[], labels?: Obj): Obj => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cfg', namespace: 'ns', uid: 'u', resourceVersion: '5', ...(labels ? { labels } : {}), ...(mf ? { managedFields: mf } : {}) },
  data,
});

interface Case {
  name: string;
  kind?: string;
  old: Obj | undefined;
  new: Obj;
  opts?: Partial<UpdateOptions>;
  want: ManagedFieldsEntry[] | undefined;
}

const cases: Case[] = [
  {
    name: 'create: the manager owns every field it wrote; added maps carry "."',
    old: undefined,
    new: cm({ a: '1' }, undefined, { app: 'web' }),
    want: [entry('kubectl-create', 'Update', { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } }, { time: T1 })],
  },
  {
    name: 'update: a changed field moves from its Apply owner to the updater',
    old: cm({ a: '1', b: '2' }, [entry('alice', 'Apply', { 'f:data': { 'f:a': {}, 'f:b': {} } })]),
    new: cm({ a: 'changed', b: '2' }),
    want: [entry('alice', 'Apply', { 'f:data': { 'f:b': {} } }), entry('kubectl-create', 'Update', { 'f:data': { 'f:a': {} } }, { time: T1 })],
  },
  {
    name: 'update: removed fields leave every manager; empty entries are dropped',
    old: cm({ a: '1', b: '2' }, [entry('alice', 'Apply', { 'f:data': { 'f:a': {} } }), entry('bob', 'Update', { 'f:data': { 'f:b': {} } })]),
    new: cm({ b: '2' }),
    want: [entry('bob', 'Update', { 'f:data': { 'f:b': {} } })],
  },
  {
    name: 'update without changes keeps the entries as they were',
    old: cm({ a: '1' }, [entry('alice', 'Apply', { 'f:data': { 'f:a': {} } })]),
    new: cm({ a: '1' }),
    want: [entry('alice', 'Apply', { 'f:data': { 'f:a': {} } })],
  },
  {
    name: 'a second update by the same manager adds to its entry and refreshes its time',
    old: cm({ a: '1' }, [entry('kubectl-create', 'Update', { 'f:data': { 'f:a': {} } })]),
    new: cm({ a: '1', b: '2' }),
    want: [entry('kubectl-create', 'Update', { 'f:data': { 'f:a': {}, 'f:b': {} } }, { time: T1 })],
  },
  {
    name: 'the same manager with another apiVersion is another Update entry',
    old: cm({ a: '1' }, [entry('kubectl-create', 'Update', { 'f:data': { 'f:a': {} } }, { apiVersion: 'v0' })]),
    new: cm({ a: '1', b: '2' }),
    want: [
      entry('kubectl-create', 'Update', { 'f:data': { 'f:a': {} } }, { apiVersion: 'v0' }),
      entry('kubectl-create', 'Update', { 'f:data': { 'f:b': {} } }, { time: T1 }),
    ],
  },
  {
    name: 'managedFields sent by the client replace the stored ones',
    old: cm({ a: '1' }, [entry('alice', 'Apply', { 'f:data': { 'f:a': {} } })]),
    new: cm({ a: '1' }, [entry('carol', 'Update', { 'f:data': { 'f:a': {} } })]),
    want: [entry('carol', 'Update', { 'f:data': { 'f:a': {} } })],
  },
  {
    name: 'managedFields: [] resets tracking',
    old: cm({ a: '1' }, [entry('alice', 'Apply', { 'f:data': { 'f:a': {} } })]),
    new: cm({ a: '1' }, []),
    want: undefined,
  },
  {
    name: 'invalid managedFields from the client fall back to the stored ones',
    old: cm({ a: '1' }, [entry('alice', 'Apply', { 'f:data': { 'f:a': {} } })]),
    new: cm({ a: '1' }, [{ manager: 'x', operation: 'Update', fieldsType: 'FieldsV2' }]),
    want: [entry('alice', 'Apply', { 'f:data': { 'f:a': {} } })],
  },
  {
    name: 'status subresource: the request cannot rewrite managedFields; reset fields are not tracked',
    kind: 'PersistentVolumeClaim',
    old: {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'p', managedFields: [entry('kcm', 'Update', { 'f:spec': { 'f:volumeName': {} } })] },
      spec: { volumeName: 'pv1' },
    },
    new: {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'p', managedFields: [] },
      spec: { volumeName: 'pv1' },
      status: { phase: 'Bound', conditions: [{ type: 'Resizing', status: 'True' }] },
    },
    opts: { manager: 'kcm', subresource: 'status', ignoredFields: [['spec'], ['metadata']] },
    want: [
      entry('kcm', 'Update', { 'f:spec': { 'f:volumeName': {} } }),
      entry(
        'kcm',
        'Update',
        { 'f:status': { '.': {}, 'f:conditions': { '.': {}, 'k:{"type":"Resizing"}': { '.': {}, 'f:status': {}, 'f:type': {} } }, 'f:phase': {} } },
        { time: T1, subresource: 'status' },
      ),
    ],
  },
  {
    name: 'an empty manager name becomes "unknown"',
    old: cm({ a: '1' }),
    new: cm({ a: '2' }),
    opts: { manager: '' },
    want: [entry('unknown', 'Update', { 'f:data': { 'f:a': {} } }, { time: T1 })],
  },
];

describe('updateManagedFields', () => {
  for (const c of cases) {
    it(c.name, () => {
      const old = structuredClone(c.old);
      const nu = structuredClone(c.new);
      const opts: UpdateOptions = { manager: 'kubectl-create', apiVersion: 'v1', now: T1, ...c.opts };
      const out = updateManagedFields(old, nu, opts, kind(c.kind ?? 'ConfigMap'), defs);
      expect((out.metadata as Obj).managedFields).toEqual(c.want);
      expect(old).toEqual(c.old);
      expect(nu).toEqual(c.new);
      // the rest of the object is the new object
      const strip = (o: Obj): Obj => {
        const x = structuredClone(o);
        delete (x.metadata as Obj).managedFields;
        return x;
      };
      expect(strip(out)).toEqual(strip(c.new));
    });
  }

  // A request that carries the live entries unchanged (a patch, a PUT of what was read): when no field
  // changes hands they are kept as they are (not decoded and encoded again); the answer is the one the
  // full computation gives (forced here by entries that decode alike but differ: reversed, and one
  // more with no fields, which the computation drops).
  const csiNode = (names: string[], mf: ManagedFieldsEntry[]): Obj => ({
    apiVersion: 'storage.cluster.io/v1',
    kind: 'CSINode',
    metadata: { name: 'n', managedFields: mf },
    spec: { drivers: names.map((name) => ({ name, nodeID: `id-${name}` })) },
  });
  const driversOwned = (names: string[]): Obj => ({ 'f:spec': { 'f:drivers': { '.': {}, ...Object.fromEntries(names.map((n) => [`k:{"name":"${n}"}`, { '.': {}, 'f:name': {}, 'f:nodeID': {} }])) } } });
  const live2 = [entry('alice', 'Apply', { 'f:data': { 'f:a': {} } }), entry('bob', 'Update', { 'f:data': { 'f:b': {} } })];
  const unchangedOwnership: { name: string; kind: string; old: Obj; new: Obj; kept: boolean }[] = [
    { name: 'a keyed list reordered', kind: 'CSINode', old: csiNode(['a', 'b', 'c'], [entry('kubelet', 'Update', driversOwned(['a', 'b', 'c']))]), new: csiNode(['c', 'b', 'a'], [entry('kubelet', 'Update', driversOwned(['a', 'b', 'c']))]), kept: true },
    { name: 'the object unchanged', kind: 'ConfigMap', old: cm({ a: '1', b: '2' }, live2), new: cm({ a: '1', b: '2' }, live2), kept: true },
    { name: 'a changed value (the updater takes it)', kind: 'ConfigMap', old: cm({ a: '1', b: '2' }, live2), new: cm({ a: 'x', b: '2' }, live2), kept: false },
    { name: 'a removed key (its owner loses it)', kind: 'ConfigMap', old: cm({ a: '1', b: '2' }, live2), new: cm({ b: '2' }, live2), kept: false },
  ];
  for (const c of unchangedOwnership) {
    it(`the request's own live entries: ${c.name}`, () => {
      const opts: UpdateOptions = { manager: 'kubectl-edit', apiVersion: 'v1', now: T1 };
      const fast = updateManagedFields(structuredClone(c.old), c.new, opts, kind(c.kind), defs);
      const forced = structuredClone(c.new);
      const meta = forced.metadata as Obj;
      meta.managedFields = [...(meta.managedFields as ManagedFieldsEntry[])].reverse().concat(entry('nobody', 'Update', {}));
      const full = updateManagedFields(structuredClone(c.old), forced, opts, kind(c.kind), defs);
      const got = (fast.metadata as Obj).managedFields;
      expect(got).toEqual((full.metadata as Obj).managedFields);
      expect(got === (c.new.metadata as Obj).managedFields).toBe(c.kept);
    });
  }

  it('caps Update managers at 10, merging the oldest into ancient-changes', () => {
    const mf: ManagedFieldsEntry[] = [];
    const data: Obj = {};
    for (let i = 0; i < 11; i++) {
      data[`k${i}`] = 'v';
      mf.push(entry(`m${String(i).padStart(2, '0')}`, 'Update', { 'f:data': { [`f:k${i}`]: {} } }, { time: `2026-07-01T09:${String(i).padStart(2, '0')}:00Z` }));
    }
    const out = updateManagedFields(cm(data, mf), cm({ ...data, new: 'x' }), { manager: 'last', apiVersion: 'v1', now: T1 }, kind('ConfigMap'), defs);
    const got = (out.metadata as Obj).managedFields as ManagedFieldsEntry[];
    expect(got.length).toBe(10);
    const ancient = got.find((e) => e.manager === 'ancient-changes')!;
    expect(ancient.fieldsV1).toEqual({ 'f:data': { 'f:k0': {}, 'f:k1': {}, 'f:k2': {} } });
    expect(ancient.time).toBe('2026-07-01T09:02:00Z');
    expect(got.map((e) => e.manager)).not.toContain('m00');
  });
});

describe('field manager names', () => {
  const ua: [string, string][] = [
    ['kubectl/v1.31.0 (linux/amd64) kubernetes/abc', 'kubectl'],
    ['curl/8.5.0', 'curl'],
    ['', ''],
    ['my\tagent/1', 'myagent'],
    ['x'.repeat(200), 'x'.repeat(128)],
    ['é'.repeat(100), 'é'.repeat(64)],
  ];
  for (const [agent, want] of ua) it(`User-Agent ${JSON.stringify(agent.slice(0, 30))} -> ${JSON.stringify(want.slice(0, 10))}`, () => expect(managerFromUserAgent(agent)).toBe(want));

  it('fieldManager validation', () => {
    expect(validateFieldManager('kubectl')).toEqual([]);
    expect(validateFieldManager('x'.repeat(128))).toEqual([]);
    expect(validateFieldManager('x'.repeat(129))).toEqual([{ field: 'fieldManager', reason: 'FieldValueTooLong', message: 'Too long: may not be more than 128 bytes' }]);
    expect(validateFieldManager('a\u0007b')).toEqual([{ field: 'fieldManager', reason: 'FieldValueInvalid', message: 'Invalid value: "a\\u0007b": invalid characters at offset 1' }]);
    expect(validateFieldManager('', { apply: true })).toEqual([{ field: 'fieldManager', reason: 'FieldValueRequired', message: 'Required value: is required for apply patch' }]);
  });

  it('managedFields validation', () => {
    expect(validateManagedFields([{ manager: 'm', operation: 'Patch', fieldsType: 'FieldsV2' }])).toEqual([
      { field: 'metadata.managedFields[0].operation', reason: 'FieldValueInvalid', message: 'Invalid value: "Patch": must be `Apply` or `Update`' },
      { field: 'metadata.managedFields[0].fieldsType', reason: 'FieldValueInvalid', message: 'Invalid value: "FieldsV2": must be `FieldsV1`' },
    ]);
  });
});

describe('FieldsV1', () => {
  const samples: Obj[] = [
    { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} }, 'f:finalizers': { 'v:"a"': {}, 'v:"b"': {} } } },
    { 'f:spec': { 'f:drivers': { 'k:{"name":"d\\u003c1\\u003e"}': { '.': {}, 'f:name': {} } } } },
    { 'f:a': {}, 'f:b': { 'i:0': {}, 'i:10': {} } },
  ];
  for (const s of samples) it(`round-trips ${JSON.stringify(s)}`, () => expect(FieldSet.fromFieldsV1(s).toFieldsV1()).toEqual(s));

  it('orders fields, then keys, then values; "." first', () => {
    const fs = FieldSet.fromFieldsV1({ 'v:1': {}, 'k:{"a":1}': {}, 'f:z': {}, 'f:a': { 'f:x': {}, '.': {} } });
    expect(Object.keys(fs.toFieldsV1())).toEqual(['f:a', 'f:z', 'k:{"a":1}', 'v:1']);
    expect(Object.keys(fs.toFieldsV1()['f:a'] as Obj)).toEqual(['.', 'f:x']);
  });

  it('paths print as in conflict messages', () => {
    const fs = FieldSet.fromFieldsV1({ 'f:spec': { 'f:drivers': { 'k:{"name":"d1"}': { 'f:nodeID': {} } } }, 'f:metadata': { 'f:finalizers': { 'v:"x"': {} } } });
    expect(fs.paths().map(pathToString)).toEqual(['.metadata.finalizers[="x"]', '.spec.drivers[name="d1"].nodeID']);
  });

  it('field set of an object: set lists by value, map lists by key, atomic maps as one leaf', () => {
    const sc = toFieldSet(
      {
        apiVersion: 'storage.cluster.io/v1',
        kind: 'StorageClass',
        metadata: { name: 'fast', finalizers: ['f1'] },
        provisioner: 'x',
        allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: ['a'] }] }],
      },
      kind('StorageClass'),
      defs,
    );
    expect(sc.toFieldsV1()).toEqual({
      'f:allowedTopologies': {},
      'f:apiVersion': {},
      'f:kind': {},
      'f:metadata': { 'f:finalizers': { 'v:"f1"': {} }, 'f:name': {} },
      'f:provisioner': {},
    });
  });

  it('decodes entries and rejects unknown fieldsType', () => {
    expect(decodeManagedFields([entry('a', 'Apply', { 'f:x': {} })]).size).toBe(1);
    expect(() => decodeManagedFields([{ manager: 'a', operation: 'Apply', fieldsType: 'X' }])).toThrow('error decoding set: unsupported fields type X');
  });
});
