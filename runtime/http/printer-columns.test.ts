// Every built-in kind's Table against upstream's printers (pkg/printers/internalversion/printers.go):
// per kind an object and the expected header (names, priority 1 = `-o wide`) and row.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { columnDefinitions, completePrinterColumns, tableRow } from './table.ts';
import type { ResourceDescriptor } from '../api/resource-descriptor.ts';
import type { Obj } from '../api/object.ts';
import { configMapResource } from '../../out/routes/configmap.ts';
import { cSIDriverResource } from '../../out/routes/csidriver.ts';
import { cSINodeResource } from '../../out/routes/csinode.ts';
import { cSIStorageCapacityResource } from '../../out/routes/csistoragecapacity.ts';
import { customResourceDefinitionResource } from '../../out/routes/customresourcedefinition.ts';
import { namespaceResource } from '../../out/routes/namespace.ts';
import { persistentVolumeResource } from '../../out/routes/persistentvolume.ts';
import { persistentVolumeClaimResource } from '../../out/routes/persistentvolumeclaim.ts';
import { secretResource } from '../../out/routes/secret.ts';
import { storageClassResource } from '../../out/routes/storageclass.ts';
import { storageVersionMigrationResource } from '../../out/routes/storageversionmigration.ts';
import { validatingWebhookConfigurationResource } from '../../out/routes/validatingwebhookconfiguration.ts';
import { volumeAttachmentResource } from '../../out/routes/volumeattachment.ts';
import { volumeAttributesClassResource } from '../../out/routes/volumeattributesclass.ts';
import { eventResource } from '../../out/routes/event.ts';
import { eventsV1EventResource } from '../../out/routes/eventsv1event.ts';

const NOW = Date.parse('2026-01-02T03:04:05Z');
const CREATED = '2026-01-02T03:02:35Z'; // 90 s before NOW
const meta = (name: string, extra: Record<string, unknown> = {}): Obj['metadata'] => ({ name, creationTimestamp: CREATED, ...extra });

interface Case {
  name: string;
  d: ResourceDescriptor;
  obj: Obj;
  /** Column names; a trailing `*` marks a priority-1 (wide) column. */
  header: string[];
  row: unknown[];
}

const cases: Case[] = [
  { name: 'ConfigMap counts data and binaryData', d: configMapResource, obj: { metadata: meta('cm'), data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }, header: ['Name', 'Data', 'Age'], row: ['cm', 3, '90s'] },
  { name: 'ConfigMap without data', d: configMapResource, obj: { metadata: meta('empty') }, header: ['Name', 'Data', 'Age'], row: ['empty', 0, '90s'] },
  { name: 'Secret', d: secretResource, obj: { metadata: meta('s'), type: 'Opaque', data: { k: 'dg==' } }, header: ['Name', 'Type', 'Data', 'Age'], row: ['s', 'Opaque', 1, '90s'] },
  { name: 'Namespace', d: namespaceResource, obj: { metadata: meta('ns'), status: { phase: 'Active' } }, header: ['Name', 'Status', 'Age'], row: ['ns', 'Active', '90s'] },
  {
    name: 'PersistentVolume bound: access modes abbreviated in upstream order, claim as namespace/name, VolumeMode after Age',
    d: persistentVolumeResource,
    obj: {
      metadata: meta('pv1'),
      spec: { capacity: { storage: '1024Mi' }, accessModes: ['ReadOnlyMany', 'ReadWriteOnce', 'ReadWriteOncePod', 'ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', claimRef: { namespace: 'apps', name: 'data' }, storageClassName: 'fast', volumeAttributesClassName: 'gold', volumeMode: 'Block' },
      status: { phase: 'Bound', reason: 'Why' },
    },
    header: ['Name', 'Capacity', 'Access Modes', 'Reclaim Policy', 'Status', 'Claim', 'StorageClass', 'VolumeAttributesClass', 'Reason', 'Age', 'VolumeMode*'],
    row: ['pv1', '1Gi', 'RWO,ROX,RWOP', 'Retain', 'Bound', 'apps/data', 'fast', 'gold', 'Why', '90s', 'Block'],
  },
  {
    name: 'PersistentVolume unbound, deleting: Terminating, <unset> classes and mode',
    d: persistentVolumeResource,
    obj: { metadata: meta('pv2', { deletionTimestamp: CREATED }), spec: { accessModes: ['ReadWriteMany'] }, status: { phase: 'Released' } },
    header: ['Name', 'Capacity', 'Access Modes', 'Reclaim Policy', 'Status', 'Claim', 'StorageClass', 'VolumeAttributesClass', 'Reason', 'Age', 'VolumeMode*'],
    row: ['pv2', '0', 'RWX', '', 'Terminating', '', '', '<unset>', '', '90s', '<unset>'],
  },
  {
    name: 'PersistentVolumeClaim bound',
    d: persistentVolumeClaimResource,
    obj: { metadata: meta('pvc1'), spec: { volumeName: 'pv1', storageClassName: 'fast', volumeMode: 'Filesystem', resources: { requests: { storage: '1Gi' } } }, status: { phase: 'Bound', capacity: { storage: '2048Mi' }, accessModes: ['ReadWriteMany', 'ReadWriteOnce'] } },
    header: ['Name', 'Status', 'Volume', 'Capacity', 'Access Modes', 'StorageClass', 'VolumeAttributesClass', 'Age', 'VolumeMode*'],
    row: ['pvc1', 'Bound', 'pv1', '2Gi', 'RWO,RWX', 'fast', '<unset>', '90s', 'Filesystem'],
  },
  {
    name: 'PersistentVolumeClaim pending: capacity and access modes empty until a volume is named',
    d: persistentVolumeClaimResource,
    obj: { metadata: meta('pvc2'), spec: { accessModes: ['ReadWriteOnce'], volumeAttributesClassName: 'gold' }, status: { phase: 'Pending', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } } },
    header: ['Name', 'Status', 'Volume', 'Capacity', 'Access Modes', 'StorageClass', 'VolumeAttributesClass', 'Age', 'VolumeMode*'],
    row: ['pvc2', 'Pending', '', '', '', '', 'gold', '90s', '<unset>'],
  },
  {
    name: 'StorageClass default: (default) suffix, Delete, Immediate and false when unset',
    d: storageClassResource,
    obj: { metadata: meta('standard', { annotations: { 'storageclass.cluster.io/is-default-class': 'true' } }), provisioner: 'csi.example.com' },
    header: ['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age'],
    row: ['standard (default)', 'csi.example.com', 'Delete', 'Immediate', false, '90s'],
  },
  {
    name: 'StorageClass not default',
    d: storageClassResource,
    obj: { metadata: meta('slow', { annotations: { 'storageclass.cluster.io/is-default-class': 'false' } }), provisioner: 'p', reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer', allowVolumeExpansion: true },
    header: ['Name', 'Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age'],
    row: ['slow', 'p', 'Retain', 'WaitForFirstConsumer', true, '90s'],
  },
  { name: 'VolumeAttributesClass', d: volumeAttributesClassResource, obj: { metadata: meta('gold'), driverName: 'csi.example.com' }, header: ['Name', 'DriverName', 'Age'], row: ['gold', 'csi.example.com', '90s'] },
  {
    name: 'CSIDriver with defaults unset',
    d: cSIDriverResource,
    obj: { metadata: meta('csi.example.com'), spec: {} },
    header: ['Name', 'AttachRequired', 'PodInfoOnMount', 'StorageCapacity', 'TokenRequests', 'RequiresRepublish', 'Modes', 'Age'],
    row: ['csi.example.com', true, false, false, '<unset>', false, '<none>', '90s'],
  },
  {
    name: 'CSIDriver with every field',
    d: cSIDriverResource,
    obj: { metadata: meta('d'), spec: { attachRequired: false, podInfoOnMount: true, storageCapacity: true, tokenRequests: [{ audience: 'a' }, { audience: 'b', expirationSeconds: 600 }], requiresRepublish: true, volumeLifecycleModes: ['Persistent', 'Ephemeral'] } },
    header: ['Name', 'AttachRequired', 'PodInfoOnMount', 'StorageCapacity', 'TokenRequests', 'RequiresRepublish', 'Modes', 'Age'],
    row: ['d', false, true, true, 'a,b', true, 'Persistent,Ephemeral', '90s'],
  },
  { name: 'CSINode', d: cSINodeResource, obj: { metadata: meta('node1'), spec: { drivers: [{ name: 'a', nodeID: 'n' }] } }, header: ['Name', 'Drivers', 'Age'], row: ['node1', 1, '90s'] },
  { name: 'CSIStorageCapacity has no Age', d: cSIStorageCapacityResource, obj: { metadata: meta('cap'), storageClassName: 'fast', capacity: '1000M' }, header: ['Name', 'StorageClassName', 'Capacity'], row: ['cap', 'fast', '1G'] },
  { name: 'CSIStorageCapacity without capacity', d: cSIStorageCapacityResource, obj: { metadata: meta('cap'), storageClassName: 'fast' }, header: ['Name', 'StorageClassName', 'Capacity'], row: ['cap', 'fast', '<unset>'] },
  {
    name: 'VolumeAttachment without status: attached false',
    d: volumeAttachmentResource,
    obj: { metadata: meta('va'), spec: { attacher: 'csi.example.com', nodeName: 'node1', source: { persistentVolumeName: 'pv1' } } },
    header: ['Name', 'Attacher', 'PV', 'Node', 'Attached', 'Age'],
    row: ['va', 'csi.example.com', 'pv1', 'node1', false, '90s'],
  },
  { name: 'ValidatingWebhookConfiguration', d: validatingWebhookConfigurationResource, obj: { metadata: meta('vwc'), webhooks: [{ name: 'a.example.com' }, { name: 'b.example.com' }] }, header: ['Name', 'Webhooks', 'Age'], row: ['vwc', 2, '90s'] },
  {
    name: 'StorageVersionMigration: resource.version.group, no Age',
    d: storageVersionMigrationResource,
    obj: { metadata: meta('m'), spec: { resource: { group: 'example.com', version: 'v1', resource: 'widgets' } } },
    header: ['Name', 'Resource'],
    row: ['m', 'widgets.v1.example.com'],
  },
  { name: 'CustomResourceDefinition: Created At, no Age', d: customResourceDefinitionResource, obj: { metadata: meta('widgets.example.com') }, header: ['Name', 'Created At'], row: ['widgets.example.com', CREATED] },
  {
    name: 'Event of an old-style recorder: no Age, Name last (wide), source with host, message trimmed',
    d: eventResource,
    obj: { metadata: meta('cfg.1'), involvedObject: { kind: 'ConfigMap', name: 'cfg', fieldPath: 'data' }, type: 'Normal', reason: 'Updated', message: ' changed\n', source: { component: 'watcher', host: 'n1' }, firstTimestamp: CREATED, lastTimestamp: '2026-01-02T03:03:05Z', count: 3 },
    header: ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject*', 'Source*', 'Message', 'First Seen*', 'Count*', 'Name*'],
    row: ['60s', 'Normal', 'Updated', 'configmap/cfg', 'data', 'watcher, n1', 'changed', '90s', 3, 'cfg.1'],
  },
  {
    name: 'Event of a new-style recorder: eventTime for both times, count 1, reporting controller as source',
    d: eventResource,
    obj: { metadata: meta('sc.1'), involvedObject: { kind: 'StorageClass' }, type: 'Warning', reason: 'Failed', eventTime: '2026-01-02T03:03:35.000000Z', reportingComponent: 'cluster.io/p', reportingInstance: 'p-0' },
    header: ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject*', 'Source*', 'Message', 'First Seen*', 'Count*', 'Name*'],
    row: ['30s', 'Warning', 'Failed', 'storageclass', '', 'cluster.io/p, p-0', '', '30s', 1, 'sc.1'],
  },
  {
    name: 'events.cluster.io Event: the same table from the events fields (note, regarding, reportingController, a series)',
    d: eventsV1EventResource,
    obj: { metadata: meta('sc.2'), regarding: { kind: 'StorageClass', name: 'fast' }, type: 'Warning', reason: 'Failed', note: ' full ', eventTime: CREATED, series: { count: 4, lastObservedTime: '2026-01-02T03:03:55.000000Z' }, reportingController: 'cluster.io/p', reportingInstance: 'p-0' },
    header: ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject*', 'Source*', 'Message', 'First Seen*', 'Count*', 'Name*'],
    row: ['10s', 'Warning', 'Failed', 'storageclass/fast', '', 'cluster.io/p, p-0', 'full', '90s', 4, 'sc.2'],
  },
  {
    name: 'events.cluster.io Event of an old-style recorder: the deprecated fields',
    d: eventsV1EventResource,
    obj: { metadata: meta('cfg.2'), regarding: { kind: 'ConfigMap', name: 'cfg' }, type: 'Normal', reason: 'Updated', note: 'changed', deprecatedSource: { component: 'watcher', host: 'n1' }, deprecatedFirstTimestamp: CREATED, deprecatedLastTimestamp: '2026-01-02T03:03:05Z', deprecatedCount: 3 },
    header: ['Last Seen', 'Type', 'Reason', 'Object', 'Subobject*', 'Source*', 'Message', 'First Seen*', 'Count*', 'Name*'],
    row: ['60s', 'Normal', 'Updated', 'configmap/cfg', '', 'watcher, n1', 'changed', '90s', 3, 'cfg.2'],
  },
];

describe('printer columns as upstream printers', () => {
  it.each(cases)('$name', ({ d, obj, header, row }) => {
    expect(columnDefinitions(d).map((c) => c.name + (c.priority > 0 ? '*' : ''))).toEqual(header);
    expect(tableRow(d, obj, 'None', 'meta.k8s.io', 'v1', NOW).cells).toEqual(row);
  });

  it('cover every built-in kind served', () => {
    const generated = readdirSync(new URL('../../out/routes/', import.meta.url)).filter((f) => f !== 'index.ts').map((f) => f.replace(/\.ts$/, ''));
    // route modules are named by schema: the kind, or eventsv1event for the Event of events.cluster.io
    expect(new Set(cases.map((c) => (c.d.shape ?? c.d.kind).toLowerCase()))).toEqual(new Set(generated));
  });

  it('place a declared .metadata.name column where it is declared (Event-like: Name last, wide)', () => {
    const d: ResourceDescriptor = {
      ...configMapResource,
      printerColumns: [
        { name: 'Reason', type: 'string', jsonPath: '.reason', description: '', whenAbsent: '' },
        { name: 'Name', type: 'string', format: 'name', jsonPath: '.metadata.name', description: '', priority: 1 },
      ],
    };
    expect(columnDefinitions(d).map((c) => c.name + (c.priority > 0 ? '*' : ''))).toEqual(['Reason', 'Name*']);
    expect(tableRow(d, { metadata: meta('e1'), reason: 'Created' }, 'None', 'meta.k8s.io', 'v1', NOW).cells).toEqual(['Created', 'e1']);
  });

  it("keep a custom resource's .metadata.name column beside the implicit Name, dates as durations (CRD table convertor)", () => {
    const d: ResourceDescriptor = {
      ...configMapResource,
      printerColumns: [
        { name: 'Also', type: 'string', jsonPath: '.metadata.name', description: '' },
        { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: '' },
      ],
    };
    completePrinterColumns.add(d);
    expect(columnDefinitions(d).map((c) => c.name)).toEqual(['Name', 'Also', 'Age']);
    expect(tableRow(d, { metadata: meta('w') }, 'None', 'meta.k8s.io', 'v1', NOW).cells).toEqual(['w', 'w', '90s']);
  });

  it('name the Name column as upstream: format name, except StorageVersionMigration', () => {
    expect(columnDefinitions(storageClassResource)[0]).toMatchObject({ name: 'Name', format: 'name' });
    expect(columnDefinitions(storageVersionMigrationResource)[0]).toMatchObject({ name: 'Name', format: '' });
    expect(columnDefinitions(volumeAttachmentResource)[1]).toMatchObject({ name: 'Attacher', format: 'name' });
  });
});
