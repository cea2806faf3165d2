import { describe, expect, it } from 'vitest';
import { StrategicMergePatchError } from './errors.ts';
import { applyStrategicMergePatch } from './strategic-merge.ts';
import { defs, kind } from './test-defs.ts';

interface Case {
  name: string;
  kind: string;
  original: unknown;
  patch: unknown;
  want: unknown;
}

const cm = (extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cfg', namespace: 'ns', labels: { app: 'web', tier: 'fe' }, finalizers: ['a', 'b'] },
  data: { k1: 'v1', k2: 'v2' },
  ...extra,
});

const csinode = () => ({
  apiVersion: 'storage.cluster.io/v1',
  kind: 'CSINode',
  metadata: { name: 'node-1' },
  spec: {
    drivers: [
      { name: 'd1', nodeID: 'n1', topologyKeys: ['zone'] },
      { name: 'd2', nodeID: 'n2' },
    ],
  },
});

const pvc = () => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  status: {
    phase: 'Bound',
    conditions: [
      { type: 'Resizing', status: 'True' },
      { type: 'FileSystemResizePending', status: 'False' },
    ],
  },
});

const vwc = () => ({
  apiVersion: 'admissionregistration.cluster.io/v1',
  kind: 'ValidatingWebhookConfiguration',
  metadata: { name: 'hooks' },
  webhooks: [
    { name: 'a.example.com', sideEffects: 'None', rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] },
    { name: 'b.example.com', sideEffects: 'None', timeoutSeconds: 5 },
  ],
});

const cases: Case[] = [
  {
    name: 'maps merge and null deletes a key',
    kind: 'ConfigMap',
    original: cm(),
    patch: { data: { k1: 'new', k2: null, k3: 'v3' } },
    want: { ...cm(), data: { k1: 'new', k3: 'v3' } },
  },
  {
    name: 'null on an absent key is ignored; nulls inside a new map are dropped',
    kind: 'ConfigMap',
    original: cm(),
    patch: { binaryData: { b: 'AA==', c: null }, immutable: null },
    want: { ...cm(), binaryData: { b: 'AA==' } },
  },
  {
    name: 'labels: null removes the whole map',
    kind: 'ConfigMap',
    original: cm(),
    patch: { metadata: { labels: null } },
    want: { ...cm(), metadata: { name: 'cfg', namespace: 'ns', finalizers: ['a', 'b'] } },
  },
  {
    name: 'finalizers (merge strategy, primitives) merge as a set; new values come first',
    kind: 'ConfigMap',
    original: cm(),
    patch: { metadata: { finalizers: ['c', 'a'] } },
    want: { ...cm(), metadata: { ...cm().metadata, finalizers: ['c', 'a', 'b'] } },
  },
  {
    name: '$deleteFromPrimitiveList with $setElementOrder (kubectl removing a finalizer)',
    kind: 'ConfigMap',
    original: cm(),
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'], '$setElementOrder/finalizers': ['b'] } },
    want: { ...cm(), metadata: { ...cm().metadata, finalizers: ['b'] } },
  },
  {
    name: '$setElementOrder reorders a primitive merge list',
    kind: 'ConfigMap',
    original: cm(),
    patch: { metadata: { '$setElementOrder/finalizers': ['b', 'c', 'a'], finalizers: ['c'] } },
    want: { ...cm(), metadata: { ...cm().metadata, finalizers: ['b', 'c', 'a'] } },
  },
  {
    name: '$deleteFromPrimitiveList on an absent list does nothing',
    kind: 'ConfigMap',
    original: { metadata: { name: 'x' } },
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } },
    want: { metadata: { name: 'x' } },
  },
  {
    name: 'CSINode drivers merge by name: update, add, $patch delete',
    kind: 'CSINode',
    original: csinode(),
    patch: { spec: { drivers: [{ name: 'd2', nodeID: 'n2b' }, { name: 'd3', nodeID: 'n3' }, { name: 'd1', $patch: 'delete' }] } },
    want: { ...csinode(), spec: { drivers: [{ name: 'd2', nodeID: 'n2b' }, { name: 'd3', nodeID: 'n3' }] } },
  },
  {
    name: 'merge-list element merges field by field; its atomic topologyKeys list is replaced',
    kind: 'CSINode',
    original: csinode(),
    patch: { spec: { drivers: [{ name: 'd1', topologyKeys: ['rack'], allocatable: { count: 3 } }] } },
    want: {
      ...csinode(),
      spec: {
        drivers: [
          { name: 'd1', nodeID: 'n1', topologyKeys: ['rack'], allocatable: { count: 3 } },
          { name: 'd2', nodeID: 'n2' },
        ],
      },
    },
  },
  {
    name: 'new merge-list element goes before server-only elements (upstream order)',
    kind: 'CSINode',
    original: csinode(),
    patch: { spec: { drivers: [{ name: 'd0', nodeID: 'n0' }] } },
    want: { ...csinode(), spec: { drivers: [{ name: 'd0', nodeID: 'n0' }, ...csinode().spec.drivers] } },
  },
  {
    name: '$patch: replace inside a merge list replaces the whole list',
    kind: 'CSINode',
    original: csinode(),
    patch: { spec: { drivers: [{ name: 'd9', nodeID: 'n9' }, { $patch: 'replace' }] } },
    want: { ...csinode(), spec: { drivers: [{ name: 'd9', nodeID: 'n9' }] } },
  },
  {
    name: '$setElementOrder on a map list reorders by merge key',
    kind: 'CSINode',
    original: csinode(),
    patch: { spec: { '$setElementOrder/drivers': [{ name: 'd2' }, { name: 'd1' }] } },
    want: { ...csinode(), spec: { drivers: [csinode().spec.drivers[1], csinode().spec.drivers[0]] } },
  },
  {
    name: 'PVC spec.accessModes (no merge strategy) is replaced',
    kind: 'PersistentVolumeClaim',
    original: pvc(),
    patch: { spec: { accessModes: ['ReadWriteMany'] } },
    want: { ...pvc(), spec: { ...pvc().spec, accessModes: ['ReadWriteMany'] } },
  },
  {
    name: 'PVC status conditions merge by type',
    kind: 'PersistentVolumeClaim',
    original: pvc(),
    patch: { status: { conditions: [{ type: 'FileSystemResizePending', status: 'True', message: 'waiting' }] } },
    want: {
      ...pvc(),
      status: {
        phase: 'Bound',
        conditions: [
          { type: 'Resizing', status: 'True' },
          { type: 'FileSystemResizePending', status: 'True', message: 'waiting' },
        ],
      },
    },
  },
  {
    name: 'webhooks merge by name; nested atomic rules list is replaced',
    kind: 'ValidatingWebhookConfiguration',
    original: vwc(),
    patch: { webhooks: [{ name: 'a.example.com', rules: [{ operations: ['UPDATE'] }], timeoutSeconds: 3 }] },
    want: {
      ...vwc(),
      webhooks: [{ name: 'a.example.com', sideEffects: 'None', rules: [{ operations: ['UPDATE'] }], timeoutSeconds: 3 }, vwc().webhooks[1]],
    },
  },
  {
    name: 'ownerReferences merge by uid',
    kind: 'ConfigMap',
    original: { metadata: { name: 'x', ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 's', uid: 'u1' }] } },
    patch: { metadata: { ownerReferences: [{ uid: 'u1', controller: true }, { apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'u2' }] } },
    want: {
      metadata: {
        name: 'x',
        ownerReferences: [
          { apiVersion: 'v1', kind: 'Secret', name: 's', uid: 'u1', controller: true },
          { apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: 'u2' },
        ],
      },
    },
  },
  {
    name: '$patch: replace on a map replaces it',
    kind: 'ConfigMap',
    original: cm(),
    patch: { metadata: { labels: { $patch: 'replace', only: 'me' } } },
    want: { ...cm(), metadata: { ...cm().metadata, labels: { only: 'me' } } },
  },
  {
    name: '$patch: delete on a map empties it',
    kind: 'ConfigMap',
    original: cm(),
    patch: { data: { $patch: 'delete' } },
    want: { ...cm(), data: {} },
  },
  {
    name: 'a new map carrying $patch is dropped (upstream removeDirectives)',
    kind: 'ConfigMap',
    original: { metadata: { name: 'x' } },
    patch: { data: { $patch: 'replace', a: '1' } },
    want: { metadata: { name: 'x' } },
  },
  {
    name: '$retainKeys clears keys not listed',
    kind: 'ConfigMap',
    original: cm(),
    patch: { data: { $retainKeys: ['k2', 'k3'], k3: 'v3' } },
    want: { ...cm(), data: { k2: 'v2', k3: 'v3' } },
  },
  {
    name: 'top-level $patch: replace replaces the object',
    kind: 'ConfigMap',
    original: cm(),
    patch: { $patch: 'replace', metadata: { name: 'cfg' } },
    want: { metadata: { name: 'cfg' } },
  },
  {
    name: 'a type change takes the patch value',
    kind: 'ConfigMap',
    original: cm(),
    patch: { data: 'oops' },
    want: { ...cm(), data: 'oops' },
  },
];

describe('applyStrategicMergePatch', () => {
  for (const c of cases) {
    it(c.name, () => {
      const original = structuredClone(c.original);
      const patch = structuredClone(c.patch);
      expect(applyStrategicMergePatch(original, patch, kind(c.kind), defs)).toEqual(c.want);
      // inputs are not modified
      expect(original).toEqual(c.original);
      expect(patch).toEqual(c.patch);
    });
  }
});

interface ErrCase {
  name: string;
  kind: string;
  original: unknown;
  patch: unknown;
  code: number;
  message: string;
}

const errCases: ErrCase[] = [
  {
    name: 'merge-list element without its merge key',
    kind: 'CSINode',
    original: csinode(),
    patch: { spec: { drivers: [{ nodeID: 'x' }] } },
    code: 500,
    message: 'map: map[nodeID:x] does not contain declared merge key: name',
  },
  {
    name: '$patch: delete element without its merge key',
    kind: 'CSINode',
    original: csinode(),
    patch: { spec: { drivers: [{ $patch: 'delete' }] } },
    code: 500,
    message: 'map: map[$patch:delete] does not contain declared merge key: name',
  },
  {
    name: 'unknown $patch value in a map',
    kind: 'ConfigMap',
    original: cm(),
    patch: { data: { $patch: 'explode' } },
    code: 500,
    message: 'unknown patch type: explode in map: map[$patch:explode]',
  },
  {
    name: '$patch: merge inside a list',
    kind: 'CSINode',
    original: csinode(),
    patch: { spec: { drivers: [{ $patch: 'merge' }] } },
    code: 500,
    message: 'merging lists cannot yet be specified in the patch',
  },
  {
    name: '$retainKeys not a list',
    kind: 'ConfigMap',
    original: cm(),
    patch: { data: { $retainKeys: 'k1' } },
    code: 400,
    message: 'invalid patch format of retainKeys',
  },
  {
    name: 'patch field missing from $retainKeys',
    kind: 'ConfigMap',
    original: cm(),
    patch: { data: { $retainKeys: ['k1'], k2: 'x' } },
    code: 400,
    message: 'invalid patch format of retainKeys',
  },
  {
    name: '$deleteFromPrimitiveList without a list name',
    kind: 'ConfigMap',
    original: cm(),
    patch: { metadata: { $deleteFromPrimitiveList: ['a'] } },
    code: 400,
    message: 'invalid patch format of primitive list',
  },
  {
    name: '$setElementOrder without a list name',
    kind: 'ConfigMap',
    original: cm(),
    patch: { metadata: { $setElementOrderfinalizers: ['a'] } },
    code: 400,
    message: 'invalid patch format of setElementOrder list',
  },
  {
    name: 'lists of lists',
    kind: 'ConfigMap',
    original: { metadata: { name: 'x', finalizers: [] } },
    patch: { metadata: { finalizers: [['a']] } },
    code: 422,
    message: 'lists of lists are not supported',
  },
  {
    name: 'mixed element types in a merge list',
    kind: 'ConfigMap',
    original: cm(),
    patch: { metadata: { finalizers: [{ a: 1 }] } },
    code: 500,
    message: 'list element types are not identical: [[a b] [map[a:1]]]',
  },
  {
    name: 'a patch that is not an object',
    kind: 'ConfigMap',
    original: cm(),
    patch: ['x'],
    code: 400,
    message: 'json: cannot unmarshal array into Go value of type map[string]interface {}',
  },
];

describe('applyStrategicMergePatch errors', () => {
  for (const c of errCases) {
    it(c.name, () => {
      let err: unknown;
      try {
        applyStrategicMergePatch(c.original, c.patch, kind(c.kind), defs);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(StrategicMergePatchError);
      const e = err as StrategicMergePatchError;
      expect(e.message).toBe(c.message);
      expect(e.code).toBe(c.code);
      expect(e.toApiError().code).toBe(c.code);
    });
  }

  it('422 renders as upstream generic Invalid with the text as a cause', () => {
    const e = new StrategicMergePatchError('lists of lists are not supported', 'Invalid');
    expect(e.toApiError().toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server rejected our request due to an error in our request',
      reason: 'Invalid',
      details: { causes: [{ reason: 'UnexpectedServerResponse', message: 'lists of lists are not supported' }] },
      code: 422,
    });
  });
});
