import { describe, expect, it } from 'vitest';
import { apply } from './apply.ts';
import { ApplyConflictError, ManagedFieldsError } from './errors.ts';
import type { ManagedFieldsEntry } from './managed-fields.ts';
import { updateManagedFields } from './managed-fields.ts';
import { defs, kind } from './test-defs.ts';

const T0 = '2026-07-01T10:00:00Z';
const T1 = '2026-07-01T10:05:00Z';

type Obj = Record<string, unknown>;

const applyEntry = (manager: string, fieldsV1: Obj, apiVersion = 'v1', time = T0, subresource?: string): ManagedFieldsEntry => ({
  manager,
  operation: 'Apply',
  apiVersion,
  time,
  fieldsType: 'FieldsV1',
  fieldsV1,
  ...(subresource ? { subresource } : {}),
});
const updateEntry = (manager: string, fieldsV1: Obj, apiVersion = 'v1', time = T0): ManagedFieldsEntry => ({
  manager,
  operation: 'Update',
  apiVersion,
  time,
  fieldsType: 'FieldsV1',
  fieldsV1,
});

function withMF(obj: Obj, entries: ManagedFieldsEntry[]): Obj {
  const o = structuredClone(obj);
  (o.metadata as Obj).managedFields = entries;
  return o;
}

interface Case {
  name: string;
  kind: string;
  apiVersion?: string;
  live: Obj | undefined;
  applied: Obj;
  manager: string;
  force?: boolean;
  subresource?: string;
  want?: Obj;
  wantConflict?: { message: string; causes: { reason: string; message: string; field: string }[] };
}

const cmBase = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'ns' } };

const liveCM = withMF({ ...cmBase, metadata: { ...cmBase.metadata, labels: { app: 'web' } }, data: { a: '1', b: '2' } }, [
  applyEntry('alice', { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } }),
  updateEntry('ctl', { 'f:data': { 'f:b': {} } }),
]);

const csiBase = { apiVersion: 'storage.cluster.io/v1', kind: 'CSINode', metadata: { name: 'node-1' } };

const cases: Case[] = [
  {
    name: 'create: the applier owns exactly what it applied (FieldsV1 without "." on declared fields)',
    kind: 'ConfigMap',
    live: undefined,
    applied: { ...cmBase, metadata: { ...cmBase.metadata, labels: { app: 'web' }, finalizers: ['x.io/f'] }, data: { a: '1' } },
    manager: 'kubectl',
    want: withMF({ ...cmBase, metadata: { ...cmBase.metadata, labels: { app: 'web' }, finalizers: ['x.io/f'] }, data: { a: '1' } }, [
      applyEntry('kubectl', { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:finalizers': { 'v:"x.io/f"': {} }, 'f:labels': { 'f:app': {} } } }),
    ]),
  },
  {
    name: 'same value applied by a second manager: no conflict, shared ownership',
    kind: 'ConfigMap',
    live: liveCM,
    applied: { ...cmBase, data: { a: '1' } },
    manager: 'bob',
    want: withMF({ ...cmBase, metadata: { ...cmBase.metadata, labels: { app: 'web' } }, data: { a: '1', b: '2' } }, [
      applyEntry('alice', { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } }),
      applyEntry('bob', { 'f:data': { 'f:a': {} } }, 'v1', T1),
      updateEntry('ctl', { 'f:data': { 'f:b': {} } }),
    ]),
  },
  {
    name: 'changing an applier-owned field conflicts',
    kind: 'ConfigMap',
    live: liveCM,
    applied: { ...cmBase, data: { a: 'other' } },
    manager: 'bob',
    wantConflict: {
      message: 'Apply failed with 1 conflict: conflict with "alice": .data.a',
      causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.a' }],
    },
  },
  {
    name: 'conflicts with several managers list each field; Update managers print their apiVersion',
    kind: 'ConfigMap',
    live: liveCM,
    applied: { ...cmBase, metadata: { ...cmBase.metadata, labels: { app: 'api' } }, data: { a: 'x', b: 'y' } },
    manager: 'bob',
    wantConflict: {
      message: 'Apply failed with 3 conflicts: conflicts with "alice":\n- .data.a\n- .metadata.labels.app\nconflicts with "ctl" using v1:\n- .data.b',
      causes: [
        { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.a' },
        { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.metadata.labels.app' },
        { reason: 'FieldManagerConflict', message: 'conflict with "ctl" using v1', field: '.data.b' },
      ],
    },
  },
  {
    name: 'force takes the fields; the losers keep the rest, empty entries disappear',
    kind: 'ConfigMap',
    live: liveCM,
    applied: { ...cmBase, data: { a: 'x', b: 'y' } },
    manager: 'bob',
    force: true,
    want: withMF({ ...cmBase, metadata: { ...cmBase.metadata, labels: { app: 'web' } }, data: { a: 'x', b: 'y' } }, [
      applyEntry('alice', { 'f:metadata': { 'f:labels': { 'f:app': {} } } }),
      applyEntry('bob', { 'f:data': { 'f:a': {}, 'f:b': {} } }, 'v1', T1),
    ]),
  },
  {
    name: 'fields the applier omits now are removed',
    kind: 'ConfigMap',
    live: liveCM,
    applied: { ...cmBase, data: { a: '1' } },
    manager: 'alice',
    want: withMF({ ...cmBase, data: { a: '1', b: '2' } }, [applyEntry('alice', { 'f:data': { 'f:a': {} } }, 'v1', T1), updateEntry('ctl', { 'f:data': { 'f:b': {} } })]),
  },
  {
    name: 'an omitted field another manager also owns stays',
    kind: 'ConfigMap',
    live: withMF({ ...cmBase, data: { a: '1' } }, [applyEntry('alice', { 'f:data': { 'f:a': {} } }), applyEntry('bob', { 'f:data': { 'f:a': {} } })]),
    applied: { ...cmBase, data: { c: '3' } },
    manager: 'alice',
    want: withMF({ ...cmBase, data: { a: '1', c: '3' } }, [applyEntry('bob', { 'f:data': { 'f:a': {} } }), applyEntry('alice', { 'f:data': { 'f:c': {} } }, 'v1', T1)]),
  },
  {
    name: 'CSINode drivers: map list keyed by name, atomic topologyKeys',
    kind: 'CSINode',
    apiVersion: 'storage.cluster.io/v1',
    live: undefined,
    applied: { ...csiBase, spec: { drivers: [{ name: 'd1', nodeID: 'n1', topologyKeys: ['zone'] }] } },
    manager: 'kubelet',
    want: withMF({ ...csiBase, spec: { drivers: [{ name: 'd1', nodeID: 'n1', topologyKeys: ['zone'] }] } }, [
      applyEntry(
        'kubelet',
        { 'f:spec': { 'f:drivers': { 'k:{"name":"d1"}': { '.': {}, 'f:name': {}, 'f:nodeID': {}, 'f:topologyKeys': {} } } } },
        'storage.cluster.io/v1',
      ),
    ]),
  },
  {
    name: 'CSINode: two managers own different drivers; the list merges by key',
    kind: 'CSINode',
    apiVersion: 'storage.cluster.io/v1',
    live: withMF({ ...csiBase, spec: { drivers: [{ name: 'd1', nodeID: 'n1' }] } }, [
      applyEntry('kubelet', { 'f:spec': { 'f:drivers': { 'k:{"name":"d1"}': { '.': {}, 'f:name': {}, 'f:nodeID': {} } } } }, 'storage.cluster.io/v1'),
    ]),
    applied: { ...csiBase, spec: { drivers: [{ name: 'd2', nodeID: 'n2' }] } },
    manager: 'other',
    want: withMF({ ...csiBase, spec: { drivers: [{ name: 'd1', nodeID: 'n1' }, { name: 'd2', nodeID: 'n2' }] } }, [
      applyEntry('kubelet', { 'f:spec': { 'f:drivers': { 'k:{"name":"d1"}': { '.': {}, 'f:name': {}, 'f:nodeID': {} } } } }, 'storage.cluster.io/v1'),
      applyEntry('other', { 'f:spec': { 'f:drivers': { 'k:{"name":"d2"}': { '.': {}, 'f:name': {}, 'f:nodeID': {} } } } }, 'storage.cluster.io/v1', T1),
    ]),
  },
  {
    name: 'CSINode: conflict path names the element by key',
    kind: 'CSINode',
    apiVersion: 'storage.cluster.io/v1',
    live: withMF({ ...csiBase, spec: { drivers: [{ name: 'd1', nodeID: 'n1' }] } }, [
      applyEntry('kubelet', { 'f:spec': { 'f:drivers': { 'k:{"name":"d1"}': { '.': {}, 'f:name': {}, 'f:nodeID': {} } } } }, 'storage.cluster.io/v1'),
    ]),
    applied: { ...csiBase, spec: { drivers: [{ name: 'd1', nodeID: 'changed' }] } },
    manager: 'other',
    wantConflict: {
      message: 'Apply failed with 1 conflict: conflict with "kubelet": .spec.drivers[name="d1"].nodeID',
      causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "kubelet"', field: '.spec.drivers[name="d1"].nodeID' }],
    },
  },
  {
    name: 'dropping a driver the applier owned removes the element',
    kind: 'CSINode',
    apiVersion: 'storage.cluster.io/v1',
    live: withMF({ ...csiBase, spec: { drivers: [{ name: 'd1', nodeID: 'n1' }, { name: 'd2', nodeID: 'n2' }] } }, [
      applyEntry(
        'kubelet',
        {
          'f:spec': {
            'f:drivers': { 'k:{"name":"d1"}': { '.': {}, 'f:name': {}, 'f:nodeID': {} }, 'k:{"name":"d2"}': { '.': {}, 'f:name': {}, 'f:nodeID': {} } },
          },
        },
        'storage.cluster.io/v1',
      ),
    ]),
    applied: { ...csiBase, spec: { drivers: [{ name: 'd2', nodeID: 'n2' }] } },
    manager: 'kubelet',
    want: withMF({ ...csiBase, spec: { drivers: [{ name: 'd2', nodeID: 'n2' }] } }, [
      applyEntry('kubelet', { 'f:spec': { 'f:drivers': { 'k:{"name":"d2"}': { '.': {}, 'f:name': {}, 'f:nodeID': {} } } } }, 'storage.cluster.io/v1', T1),
    ]),
  },
  {
    name: 'PVC status conditions keyed by type on the status subresource',
    kind: 'PersistentVolumeClaim',
    live: withMF(
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'] },
        status: { phase: 'Bound', conditions: [{ type: 'Resizing', status: 'True' }] },
      },
      [applyEntry('ctrl', { 'f:status': { 'f:conditions': { 'k:{"type":"Resizing"}': { '.': {}, 'f:status': {}, 'f:type': {} } } } }, 'v1', T0, 'status')],
    ),
    applied: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' }, status: { conditions: [{ type: 'Resizing', status: 'False' }] } },
    manager: 'other',
    subresource: 'status',
    wantConflict: {
      message: 'Apply failed with 1 conflict: conflict with "ctrl" with subresource "status": .status.conditions[type="Resizing"].status',
      causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "ctrl" with subresource "status"', field: '.status.conditions[type="Resizing"].status' }],
    },
  },
  {
    name: 'PVC accessModes is atomic: one leaf',
    kind: 'PersistentVolumeClaim',
    live: undefined,
    applied: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
    manager: 'kubectl',
    want: withMF(
      { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
      [applyEntry('kubectl', { 'f:spec': { 'f:accessModes': {}, 'f:resources': { 'f:requests': { 'f:storage': {} } } } })],
    ),
  },
  {
    name: 'ValidatingWebhookConfiguration webhooks by name; ownerReferences by uid (atomic elements)',
    kind: 'ValidatingWebhookConfiguration',
    apiVersion: 'admissionregistration.cluster.io/v1',
    live: undefined,
    applied: {
      apiVersion: 'admissionregistration.cluster.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'hooks', ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 's', uid: 'u1' }] },
      webhooks: [{ name: 'a.example.com', sideEffects: 'None', rules: [{ operations: ['CREATE'] }] }],
    },
    manager: 'kubectl',
    want: withMF(
      {
        apiVersion: 'admissionregistration.cluster.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'hooks', ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 's', uid: 'u1' }] },
        webhooks: [{ name: 'a.example.com', sideEffects: 'None', rules: [{ operations: ['CREATE'] }] }],
      },
      [
        applyEntry(
          'kubectl',
          {
            'f:metadata': { 'f:ownerReferences': { 'k:{"uid":"u1"}': {} } },
            'f:webhooks': { 'k:{"name":"a.example.com"}': { '.': {}, 'f:name': {}, 'f:rules': {}, 'f:sideEffects': {} } },
          },
          'admissionregistration.cluster.io/v1',
        ),
      ],
    ),
  },
];

describe('apply', () => {
  for (const c of cases) {
    it(c.name, () => {
      const live = structuredClone(c.live);
      const applied = structuredClone(c.applied);
      const run = () =>
        apply(live, applied, { manager: c.manager, force: !!c.force, apiVersion: c.apiVersion ?? 'v1', subresource: c.subresource, now: T1 }, kind(c.kind), defs);
      if (c.wantConflict) {
        let err: unknown;
        try {
          run();
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(ApplyConflictError);
        const e = err as ApplyConflictError;
        expect(e.message).toBe(c.wantConflict.message);
        expect(e.causes).toEqual(c.wantConflict.causes);
        expect(e.toApiError().toStatus()).toEqual({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: c.wantConflict.message,
          reason: 'Conflict',
          details: { causes: c.wantConflict.causes },
          code: 409,
        });
        return;
      }
      const res = run();
      // fix the create time of the first entry for create cases
      const want = structuredClone(c.want!);
      if (c.live === undefined) for (const e of (want.metadata as Obj).managedFields as ManagedFieldsEntry[]) e.time = T1;
      expect(res.object).toEqual(want);
      expect(res.managedFields).toEqual((want.metadata as Obj).managedFields);
      expect(live).toEqual(c.live);
      expect(applied).toEqual(c.applied);
    });
  }

  it('an unchanged object keeps the entry time', () => {
    const live = withMF({ ...cmBase, data: { a: '1' } }, [applyEntry('alice', { 'f:data': { 'f:a': {} } })]);
    const res = apply(live, { ...cmBase, data: { a: '1' } }, { manager: 'alice', force: false, apiVersion: 'v1', now: T1 }, kind('ConfigMap'), defs);
    expect(res.changed).toBe(false);
    expect(res.managedFields).toEqual([applyEntry('alice', { 'f:data': { 'f:a': {} } })]);
  });

  it('rejects managedFields in the applied object', () => {
    expect(() =>
      apply(undefined, { ...cmBase, metadata: { name: 'cfg', managedFields: [] } }, { manager: 'a', force: false, apiVersion: 'v1', now: T1 }, kind('ConfigMap'), defs),
    ).toThrow(new ManagedFieldsError('metadata.managedFields must be nil', 'BadRequest'));
  });

  it('rejects another apiVersion', () => {
    let err: unknown;
    try {
      apply(undefined, { ...cmBase, apiVersion: 'v2' }, { manager: 'a', force: false, apiVersion: 'v1', now: T1 }, kind('ConfigMap'), defs);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ManagedFieldsError);
    expect((err as ManagedFieldsError).message).toBe('Incorrect version specified in apply patch. Specified patch version: v2, expected: v1');
    expect((err as ManagedFieldsError).code).toBe(400);
  });

  it('rejects another kind when the kind is given', () => {
    expect(() =>
      apply(undefined, { ...cmBase, kind: 'Secret' }, { manager: 'a', force: false, apiVersion: 'v1', kind: 'ConfigMap', now: T1 }, kind('ConfigMap'), defs),
    ).toThrow('invalid object type: /v1, Kind=Secret');
  });

  it('a map-list element without its key is a 500 typed-object error', () => {
    let err: unknown;
    try {
      apply(undefined, { ...csiBase, spec: { drivers: [{ nodeID: 'x' }] } }, { manager: 'a', force: false, apiVersion: 'storage.cluster.io/v1', now: T1 }, kind('CSINode'), defs);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ManagedFieldsError);
    expect((err as ManagedFieldsError).code).toBe(500);
    expect((err as Error).message).toContain('.spec.drivers[0]: associative list with keys has an element that omits key field "name"');
  });

  it('apply after an Update manager changed a field conflicts until forced, then the updater loses it', () => {
    const created = apply(undefined, { ...cmBase, data: { a: '1' } }, { manager: 'alice', force: false, apiVersion: 'v1', now: T0 }, kind('ConfigMap'), defs).object;
    const edited = updateManagedFields(created, { ...created, data: { a: '2' } }, { manager: 'kubectl-edit', apiVersion: 'v1', now: T0 }, kind('ConfigMap'), defs);
    expect(() => apply(edited, { ...cmBase, data: { a: '1' } }, { manager: 'alice', force: false, apiVersion: 'v1', now: T1 }, kind('ConfigMap'), defs)).toThrow(
      'Apply failed with 1 conflict: conflict with "kubectl-edit" using v1: .data.a',
    );
    const forced = apply(edited, { ...cmBase, data: { a: '1' } }, { manager: 'alice', force: true, apiVersion: 'v1', now: T1 }, kind('ConfigMap'), defs);
    expect(forced.object.data).toEqual({ a: '1' });
    expect(forced.managedFields).toEqual([applyEntry('alice', { 'f:data': { 'f:a': {} } }, 'v1', T1)]);
  });
  // The merged object is changed in place where merge made it; every other container is copied,
  // so that the registry may change the result without touching the live object or the applied
  // configuration (an apply retried after a conflict applies the same configuration again).
  const sharing: [string, string, Obj | undefined, Obj][] = [
    [
      'ConfigMap over a live object, with an applied null',
      'ConfigMap',
      { ...cmBase, metadata: { ...(cmBase.metadata as Obj), labels: { a: '1', b: '2' } }, data: { x: '1' } },
      { ...cmBase, metadata: { ...(cmBase.metadata as Obj), labels: { a: null, c: '3' } }, data: { y: '2' } },
    ],
    ['ConfigMap created', 'ConfigMap', undefined, { ...cmBase, metadata: { ...(cmBase.metadata as Obj), annotations: { k: 'v' } }, data: { y: '2' } }],
    [
      'CSINode drivers (a map list) with atomic topologyKeys',
      'CSINode',
      { apiVersion: 'storage.cluster.io/v1', kind: 'CSINode', metadata: { name: 'n' }, spec: { drivers: [{ name: 'a.cluster.io', nodeID: 'n1', topologyKeys: ['k1'] }] } },
      { apiVersion: 'storage.cluster.io/v1', kind: 'CSINode', metadata: { name: 'n' }, spec: { drivers: [{ name: 'b.cluster.io', nodeID: 'n2', topologyKeys: ['k2'], allocatable: { count: 3 } }] } },
    ],
  ];
  it.each(sharing)('%s: the result shares no container with its inputs', (_name, k, live, applied) => {
    const liveBefore = structuredClone(live);
    const appliedBefore = structuredClone(applied);
    const { object } = apply(live, applied, { manager: 'm', force: true, apiVersion: String(applied.apiVersion), now: T1 }, kind(k), defs);
    // change every container of the result
    const stack: unknown[] = [object];
    while (stack.length) {
      const v = stack.pop();
      if (Array.isArray(v)) {
        stack.push(...v);
        v.push('changed');
      } else if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
        stack.push(...Object.values(v));
        (v as Obj).changed = true;
      }
    }
    expect(live).toEqual(liveBefore);
    expect(applied).toEqual(appliedBefore);
  });
});
