// `kubectl get [-o wide]` against a real server prints each built-in kind as upstream's printers do
// (pkg/printers/internalversion/printers.go): the header, the column order (wide columns after
// AGE) and the formatted cells. Cells are read at their header's offset, so empty cells count.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer } from './harness.ts';
import { KUBECTL, runKubectl } from './kubectl.ts';

if (!KUBECTL) console.warn('kubectl not found (/usr/bin/kubectl): skipping the printer column e2e tests');
const maybe = KUBECTL ? describe : describe.skip;

const MANIFEST = `apiVersion: storage.cluster.io/v1
kind: StorageClass
metadata:
  name: pc-default
  annotations:
    storageclass.cluster.io/is-default-class: "true"
provisioner: example.com/fast
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: pc-pv
spec:
  capacity: {storage: 1024Mi}
  accessModes: [ReadOnlyMany, ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: pc-default
  claimRef: {namespace: default, name: pc-claim}
  hostPath: {path: /tmp/pc}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: pc-claim
  namespace: default
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
  storageClassName: pc-default
---
apiVersion: storage.cluster.io/v1
kind: VolumeAttachment
metadata:
  name: pc-va
spec:
  attacher: csi.example.com
  nodeName: node1
  source: {persistentVolumeName: pc-pv}
---
apiVersion: storage.cluster.io/v1
kind: CSIDriver
metadata:
  name: csi.example.com
spec: {}
---
apiVersion: storage.cluster.io/v1
kind: CSIStorageCapacity
metadata: {name: pc-cap, namespace: default}
storageClassName: pc-default
capacity: 1000M
---
apiVersion: storagemigration.cluster.io/v1alpha1
kind: StorageVersionMigration
metadata: {name: pc-mig}
spec:
  resource: {group: storage.cluster.io, version: v1, resource: storageclasses}
---
apiVersion: apiextensions.cluster.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
    - {name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}
`;

interface Expected {
  args: string[];
  header: string[];
  /** The row of the object named; a pattern where the cell depends on the time. */
  row: Array<string | RegExp>;
}

const AGE = /^\d+s$/;

const cases: Expected[] = [
  {
    args: ['get', 'pv', 'pc-pv', '-o', 'wide'],
    header: ['NAME', 'CAPACITY', 'ACCESS MODES', 'RECLAIM POLICY', 'STATUS', 'CLAIM', 'STORAGECLASS', 'VOLUMEATTRIBUTESCLASS', 'REASON', 'AGE', 'VOLUMEMODE'],
    row: ['pc-pv', '1Gi', 'RWO,ROX', 'Retain', 'Pending', 'default/pc-claim', 'pc-default', '<unset>', '', AGE, 'Filesystem'],
  },
  {
    args: ['get', 'pvc', 'pc-claim', '-o', 'wide'],
    header: ['NAME', 'STATUS', 'VOLUME', 'CAPACITY', 'ACCESS MODES', 'STORAGECLASS', 'VOLUMEATTRIBUTESCLASS', 'AGE', 'VOLUMEMODE'],
    row: ['pc-claim', 'Pending', '', '', '', 'pc-default', '<unset>', AGE, 'Filesystem'],
  },
  {
    args: ['get', 'storageclass', 'pc-default'],
    header: ['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE', 'ALLOWVOLUMEEXPANSION', 'AGE'],
    row: ['pc-default (default)', 'example.com/fast', 'Delete', 'Immediate', 'false', AGE],
  },
  {
    args: ['get', 'volumeattachment', 'pc-va'],
    header: ['NAME', 'ATTACHER', 'PV', 'NODE', 'ATTACHED', 'AGE'],
    row: ['pc-va', 'csi.example.com', 'pc-pv', 'node1', 'false', AGE],
  },
  {
    args: ['get', 'csidriver', 'csi.example.com'],
    header: ['NAME', 'ATTACHREQUIRED', 'PODINFOONMOUNT', 'STORAGECAPACITY', 'TOKENREQUESTS', 'REQUIRESREPUBLISH', 'MODES', 'AGE'],
    row: ['csi.example.com', 'true', 'false', 'false', '<unset>', 'false', 'Persistent', AGE],
  },
  { args: ['get', 'csistoragecapacity', 'pc-cap'], header: ['NAME', 'STORAGECLASSNAME', 'CAPACITY'], row: ['pc-cap', 'pc-default', '1G'] },
  { args: ['get', 'storageversionmigration', 'pc-mig'], header: ['NAME', 'RESOURCE'], row: ['pc-mig', 'storageclasses.v1.storage.cluster.io'] },
  { args: ['get', 'crd', 'widgets.example.com'], header: ['NAME', 'CREATED AT'], row: ['widgets.example.com', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/] },
  { args: ['get', 'ns', 'default'], header: ['NAME', 'STATUS', 'AGE'], row: ['default', 'Active', AGE] },
];

/** Splits kubectl's aligned output at the header's column offsets. */
function cellsAt(header: string, line: string, names: string[]): string[] {
  const starts: number[] = [];
  let from = 0;
  for (const n of names) {
    const i = header.indexOf(n, from);
    starts.push(i);
    from = i + n.length;
  }
  return starts.map((s, i) => line.slice(s, i + 1 < starts.length ? starts[i + 1] : undefined).trim());
}

maybe('printer columns with kubectl', () => {
  let s: TestServer;
  let work: string;

  beforeAll(async () => {
    s = await TestServer.start('memory');
    work = mkdtempSync(join(tmpdir(), 'clusterspec-printer-'));
    writeFileSync(join(work, 'manifest.yaml'), MANIFEST);
    const r = await runKubectl(s.kubeconfig, join(work, 'cache'), ['create', '-f', join(work, 'manifest.yaml')]);
    expect(r.stderr).toBe('');
  });
  afterAll(async () => {
    await s?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it.each(cases)('kubectl $args', async ({ args, header, row }) => {
    const r = await runKubectl(s.kubeconfig, join(work, 'cache'), args);
    expect(r.stderr).toBe('');
    const [head, first] = r.stdout.split('\n');
    expect(head.trim().split(/\s{2,}/)).toEqual(header);
    expect(cellsAt(head, first, header)).toEqual(row.map((c) => (typeof c === 'string' ? c : expect.stringMatching(c))));
  });
});
