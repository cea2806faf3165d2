// Empty maps and lists left out as Go's omitempty leaves them out of upstream's built-in types; the
// store applies it to every write (create, update, patch, dry run).

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configMapResource } from '../../out/routes/configmap.ts';
import { namespaceResource } from '../../out/routes/namespace.ts';
import { persistentVolumeResource } from '../../out/routes/persistentvolume.ts';
import { customResourceDefinitionResource } from '../../out/routes/customresourcedefinition.ts';
import * as validators from '../../out/validators/index.ts';
import { lazyValidator } from '../http/bootstrap.ts';
import type { Schema } from '../schema/types.ts';
import { MemoryStorage } from '../storage/memory.ts';
import type { Obj } from '../api/object.ts';
import { dropEmptyOmitted } from './omit-empty.ts';
import { Registry } from './registry.ts';
import type { Store } from './store.ts';

const shapes = (JSON.parse(readFileSync(new URL('../../out/validators/definitions.json', import.meta.url), 'utf8')) as { shapes: Record<string, Schema> }).shapes;

interface Case {
  name: string;
  kind: string;
  input: Obj;
  expected: Obj;
  customResource?: boolean;
}

const cases: Case[] = [
  {
    name: 'ConfigMap: empty annotations, labels, data, binaryData, finalizers, ownerReferences',
    kind: 'ConfigMap',
    input: { metadata: { name: 'a', annotations: {}, labels: {}, finalizers: [], ownerReferences: [], managedFields: [] }, data: {}, binaryData: {} },
    expected: { metadata: { name: 'a' } },
  },
  {
    name: 'ConfigMap: non-empty maps stay, empty string values too',
    kind: 'ConfigMap',
    input: { metadata: { name: 'a', labels: { x: '' } }, data: { k: '' } },
    expected: { metadata: { name: 'a', labels: { x: '' } }, data: { k: '' } },
  },
  {
    name: 'StorageClass: parameters, mountOptions, allowedTopologies; nested matchLabelExpressions',
    kind: 'StorageClass',
    input: { metadata: { name: 's' }, provisioner: 'p', parameters: {}, mountOptions: [], allowedTopologies: [{ matchLabelExpressions: [] }] },
    expected: { metadata: { name: 's' }, provisioner: 'p', allowedTopologies: [{}] },
  },
  {
    name: 'StorageClass: TopologySelectorLabelRequirement.values has no omitempty (required)',
    kind: 'StorageClass',
    input: { metadata: { name: 's' }, provisioner: 'p', allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: [] }] }] },
    expected: { metadata: { name: 's' }, provisioner: 'p', allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: [] }] }] },
  },
  {
    name: 'PersistentVolume: nodeSelectorTerms has no omitempty; matchExpressions has',
    kind: 'PersistentVolume',
    input: { metadata: { name: 'pv' }, spec: { capacity: {}, accessModes: [], mountOptions: [], nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [], matchFields: [] }] } } } },
    expected: { metadata: { name: 'pv' }, spec: { nodeAffinity: { required: { nodeSelectorTerms: [{}] } } } },
  },
  {
    name: 'PersistentVolume: an empty nodeSelectorTerms stays (validation reports it)',
    kind: 'PersistentVolume',
    input: { metadata: { name: 'pv' }, spec: { nodeAffinity: { required: { nodeSelectorTerms: [] } } } },
    expected: { metadata: { name: 'pv' }, spec: { nodeAffinity: { required: { nodeSelectorTerms: [] } } } },
  },
  {
    name: 'CSINode: drivers (required) and topologyKeys (no omitempty) stay',
    kind: 'CSINode',
    input: { metadata: { name: 'n', labels: {} }, spec: { drivers: [{ name: 'd', nodeID: 'x', topologyKeys: [] }] } },
    expected: { metadata: { name: 'n' }, spec: { drivers: [{ name: 'd', nodeID: 'x', topologyKeys: [] }] } },
  },
  {
    name: 'ValidatingWebhookConfiguration: admissionReviewVersions stays, matchConditions and namespaceSelector maps go',
    kind: 'ValidatingWebhookConfiguration',
    input: {
      metadata: { name: 'w' },
      webhooks: [{ name: 'a.b.c', admissionReviewVersions: [], matchConditions: [], namespaceSelector: { matchLabels: {}, matchExpressions: [] }, sideEffects: 'None', clientConfig: { url: 'https://x' } }],
    },
    expected: { metadata: { name: 'w' }, webhooks: [{ name: 'a.b.c', admissionReviewVersions: [], namespaceSelector: {}, sideEffects: 'None', clientConfig: { url: 'https://x' } }] },
  },
  {
    name: 'ValidatingWebhookConfiguration: no webhooks',
    kind: 'ValidatingWebhookConfiguration',
    input: { metadata: { name: 'w' }, webhooks: [] },
    expected: { metadata: { name: 'w' } },
  },
  {
    name: 'CustomResourceDefinition: schema maps go (also under items and additionalProperties), status lists stay',
    kind: 'CustomResourceDefinition',
    input: {
      metadata: { name: 'x' },
      spec: {
        group: 'g',
        names: { plural: 'p', kind: 'K', shortNames: [], categories: [] },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            additionalPrinterColumns: [],
            schema: { openAPIV3Schema: { type: 'object', required: [], properties: { a: { type: 'array', items: { type: 'object', properties: {} } }, m: { type: 'object', additionalProperties: { type: 'object', enum: [] } } } } },
          },
        ],
      },
      status: { conditions: [], storedVersions: [], acceptedNames: { plural: '', kind: '', shortNames: [] } },
    },
    expected: {
      metadata: { name: 'x' },
      spec: {
        group: 'g',
        names: { plural: 'p', kind: 'K' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', properties: { a: { type: 'array', items: { type: 'object' } }, m: { type: 'object', additionalProperties: { type: 'object' } } } } },
          },
        ],
      },
      status: { conditions: [], storedVersions: [], acceptedNames: { plural: '', kind: '' } },
    },
  },
  {
    name: 'a custom resource: only metadata is typed',
    kind: 'Anything',
    customResource: true,
    input: { metadata: { name: 'c', annotations: {} }, spec: { list: [], map: {} } },
    expected: { metadata: { name: 'c' }, spec: { list: [], map: {} } },
  },
];

describe('omitempty', () => {
  it.each(cases)('$name', ({ kind, input, expected, customResource }) => {
    const obj = structuredClone(input);
    dropEmptyOmitted(obj, kind, shapes, customResource);
    expect(obj).toEqual(expected);
  });
});

describe('the store leaves empty omitempty fields out of every write', () => {
  let storage: MemoryStorage;
  let cms: Store;
  let pvs: Store;
  let crds: Store;

  beforeAll(async () => {
    storage = new MemoryStorage({ autoCompaction: false });
    const registry = new Registry(
      storage,
      [
        { descriptor: configMapResource, validator: lazyValidator(() => validators.ConfigMap.createValidator()) },
        { descriptor: namespaceResource, validator: lazyValidator(() => validators.Namespace.createValidator()) },
        { descriptor: persistentVolumeResource, validator: lazyValidator(() => validators.PersistentVolume.createValidator()) },
        { descriptor: customResourceDefinitionResource, validator: lazyValidator(() => validators.CustomResourceDefinition.createValidator()) },
      ],
      { shapes },
    );
    await registry.init();
    cms = registry.storeFor('', 'configmaps') as Store;
    pvs = registry.storeFor('', 'persistentvolumes') as Store;
    crds = registry.storeFor('apiextensions.cluster.io', 'customresourcedefinitions') as Store;
  });
  afterAll(async () => {
    await storage.close();
  });

  const empty = { metadata: { name: 'e', annotations: {}, labels: {} }, data: {} };

  it('create, its dry run, and what is stored', async () => {
    const dry = await cms.create('default', structuredClone(empty), { dryRun: true });
    expect(Object.keys(dry.object)).not.toContain('data');
    expect(dry.object.metadata).not.toHaveProperty('annotations');
    const created = await cms.create('default', structuredClone(empty));
    expect(created.object.metadata).not.toHaveProperty('labels');
    const stored = await cms.get('default', 'e');
    expect(stored).not.toHaveProperty('data');
    expect(stored.metadata).not.toHaveProperty('annotations');
    expect(stored.metadata).not.toHaveProperty('labels');
  });

  it('an update or patch that empties a map is a no-op when the stored object had none', async () => {
    const before = await cms.get('default', 'e');
    const rv = (before.metadata as Obj).resourceVersion;
    const updated = await cms.update('default', 'e', { ...structuredClone(empty), metadata: { ...empty.metadata, resourceVersion: rv } });
    expect((updated.object.metadata as Obj).resourceVersion).toBe(rv);
    const patched = await cms.patch('default', 'e', (cur) => ({ ...cur, metadata: { ...(cur.metadata as Obj), annotations: {} } }), { dryRun: true });
    expect(patched.object.metadata).not.toHaveProperty('annotations');
  });
  // `kubectl create -f` then `kubectl apply -f`/`replace -f`/`diff -f` of one manifest: the stored
  // object lacks the empty maps the manifest carries. Upstream compares the old and new object with
  // apiequality.Semantic.DeepEqual (nil and empty equal) in ValidatePersistentVolumeUpdate and the
  // CRD strategy's generation bump, so the empties must be gone before validation and that comparison.
  it('an update carrying empty maps the stored object lacks passes immutability checks and keeps the generation', async () => {
    const pv = { metadata: { name: 'pv1' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], mountOptions: [], csi: { driver: 'csi.example.com', volumeHandle: 'h1', volumeAttributes: {} } } };
    await pvs.create('', structuredClone(pv));
    const storedPv = await pvs.get('', 'pv1');
    const pvUpdate = { ...structuredClone(pv), metadata: { name: 'pv1', resourceVersion: (storedPv.metadata as Obj).resourceVersion } };
    const pvResult = await pvs.update('', 'pv1', pvUpdate);
    expect((pvResult.object.metadata as Obj).resourceVersion).toBe((storedPv.metadata as Obj).resourceVersion);

    const crd = {
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: [] },
        scope: 'Namespaced',
        versions: [{ name: 'v1', served: true, storage: true, additionalPrinterColumns: [], schema: { openAPIV3Schema: { type: 'object', required: [] } } }],
      },
    };
    await crds.create('', structuredClone(crd));
    const storedCrd = await crds.get('', 'widgets.example.com');
    const crdUpdate = { ...structuredClone(crd), metadata: { name: 'widgets.example.com', resourceVersion: (storedCrd.metadata as Obj).resourceVersion } };
    const crdResult = await crds.update('', 'widgets.example.com', crdUpdate, { dryRun: true });
    expect((crdResult.object.metadata as Obj).generation).toBe(1);
  });
});

describe('omitempty on deep objects', () => {
  it('walks a CRD schema nested 20,000 deep without exhausting the stack', () => {
    const leaf: Obj = { type: 'object', properties: {} };
    let schema: Obj = leaf;
    for (let i = 0; i < 20_000; i++) schema = { type: 'object', properties: { n: schema } };
    const crd: Obj = { metadata: { name: 'deep' }, spec: { versions: [{ name: 'v1', schema: { openAPIV3Schema: schema } }] } };
    dropEmptyOmitted(crd, 'CustomResourceDefinition', shapes);
    expect(leaf).toEqual({ type: 'object' });
  });
});
