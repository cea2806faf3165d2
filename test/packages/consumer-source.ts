// The TypeScript consumer of the packed packages, type-checked under each moduleResolution. Every
// `@ts-expect-error` line must be an error: the test checks the file once more with the directives
// removed and expects errors on exactly the lines that follow them.
export const TS_CONSUMER = `import { validate, validateUpdate, applyDefaults, type StorageClass } from '@clusterspec/artifacts/storage.cluster.io/v1/StorageClass';
import { StorageClass as StorageClasses, type CSIDriver } from '@clusterspec/artifacts/storage.cluster.io/v1';
import { ConfigMap } from '@clusterspec/artifacts/v1';
import { StorageClass as FromRoot } from '@clusterspec/artifacts';
import type { StorageClass as DeclaredStorageClass } from '@clusterspec/types/storage.cluster.io/v1';
import type { ObjectMeta } from '@clusterspec/types';

const metadata: ObjectMeta = { name: 'fast' };
const sc: StorageClass = { apiVersion: 'storage.cluster.io/v1', kind: 'StorageClass', metadata, provisioner: 'csi.example.com' };
const declared: DeclaredStorageClass = sc;
const errors: { field: string; message: string }[] = [
  ...validate(sc),
  ...StorageClasses.validate(declared),
  ...FromRoot.validateUpdate(sc, sc),
  ...validateUpdate(sc, sc),
  ...ConfigMap.validate({ apiVersion: 'v1', kind: 'ConfigMap' }),
];
applyDefaults(sc);
export const count: number = errors.length;

// @ts-expect-error a misspelt field
export const misspelt: StorageClass = { metadata, provisionr: 'csi.example.com' };
// @ts-expect-error a field of the wrong type
export const wrongType: StorageClass = { metadata, provisioner: 42 };
// @ts-expect-error a value outside the enum
export const wrongEnum: StorageClass = { metadata, provisioner: 'csi.example.com', reclaimPolicy: 'Sometimes' };
// @ts-expect-error a StorageClass is not a CSIDriver
export const notADriver: CSIDriver = sc;
// @ts-expect-error validate returns field errors, not a boolean
export const notBoolean: boolean = validate(sc);
// @ts-expect-error a kind the group-version does not serve
export { ConfigMap as Misplaced } from '@clusterspec/artifacts/storage.cluster.io/v1/ConfigMap';
`;

/** The consumer with every directive line blanked (line numbers kept), and the lines that must then fail. */
export function withoutDirectives(source: string): { source: string; failingLines: number[] } {
  const lines = source.split('\n');
  const failingLines: number[] = [];
  const stripped = lines.map((line, i) => {
    if (!line.trimStart().startsWith('// @ts-expect-error')) return line;
    failingLines.push(i + 2); // 1-based number of the next line
    return '//';
  });
  return { source: stripped.join('\n'), failingLines };
}
