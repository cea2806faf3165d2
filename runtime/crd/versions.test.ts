import { describe, expect, it } from 'vitest';
import type { CustomResourceDefinition } from './types.ts';
import {
  compareKubeAwareVersionStrings, deprecationWarning, recordStoredVersions, servedVersions, sortVersions, validateStoredVersions,
} from './versions.ts';

const crd = (versions: CustomResourceDefinition['spec']['versions'], storedVersions?: string[]): CustomResourceDefinition => ({
  metadata: { name: 'widgets.example.cluster.io' },
  spec: { group: 'example.cluster.io', scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' }, versions },
  ...(storedVersions ? { status: { storedVersions } } : {}),
});

describe('discovery order (document 2 section 9 rule 2)', () => {
  it('reproduces the example order', () => {
    const expected = ['v10', 'v2', 'v1', 'v11beta2', 'v10beta3', 'v3beta1', 'v12alpha1', 'v11alpha2', 'foo1', 'foo10'];
    const shuffled = ['foo10', 'v11alpha2', 'v1', 'v3beta1', 'foo1', 'v10', 'v12alpha1', 'v2', 'v10beta3', 'v11beta2'];
    expect(sortVersions(shuffled)).toEqual(expected);
    expect(sortVersions([...expected].reverse())).toEqual(expected);
  });
  it.each([
    ['v1', 'v1beta1', 1], ['v1beta1', 'v1alpha1', 1], ['v2', 'v1', 1], ['v1beta2', 'v1beta1', 1], ['v1', 'foo', 1], ['abc', 'abd', 1], ['v1', 'v1', 0],
    ['v01', 'foo', 1], ['v1beta', 'v1', -1],
  ])('compareKubeAwareVersionStrings(%s, %s) has sign %i', (a, b, sign) => {
    expect(Math.sign(compareKubeAwareVersionStrings(a as string, b as string))).toBe(sign);
  });
  it('lists only served versions', () => {
    expect(servedVersions(crd([{ name: 'v1beta1', served: true }, { name: 'v1', served: true, storage: true }, { name: 'v2alpha1', served: false }]))).toEqual(['v1', 'v1beta1']);
  });
});

describe('storedVersions', () => {
  it('the storage version is appended on create and update', () => {
    const created = recordStoredVersions(crd([{ name: 'v1beta1', served: true, storage: true }], ['junk']));
    expect(created.status?.storedVersions).toEqual(['v1beta1']);
    const updated = recordStoredVersions(crd([{ name: 'v1beta1', served: true }, { name: 'v1', served: true, storage: true }]), created);
    expect(updated.status?.storedVersions).toEqual(['v1beta1', 'v1']);
    expect(recordStoredVersions(crd([{ name: 'v1', served: true, storage: true }]), updated).status?.storedVersions).toEqual(['v1beta1', 'v1']);
  });
  const text = (e: { field: string; message: string }[]) => e.map((x) => `${x.field}: ${x.message}`);
  it.each([
    { name: 'all present', stored: ['v1beta1', 'v1'], versions: ['v1beta1', 'v1'], errors: [] },
    {
      name: 'a stored version removed from spec.versions', stored: ['v1beta1', 'v1'], versions: ['v1'],
      errors: ['status.storedVersions[0]: Invalid value: "v1beta1": missing from spec.versions; v1beta1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1beta1 and removes v1beta1 from status.storedVersions'],
    },
    { name: 'storage version missing', stored: ['v1beta1'], versions: ['v1beta1', 'v1'], errors: ['status.storedVersions: Invalid value: ["v1beta1"]: must have the storage version v1'] },
    { name: 'empty', stored: [], versions: ['v1'], errors: ['status.storedVersions: Invalid value: []: must have at least one stored version'] },
  ])('$name', ({ stored, versions, errors }) => {
    const vs = versions.map((n, i) => ({ name: n, served: true, storage: i === versions.length - 1 }));
    expect(text(validateStoredVersions(stored, vs))).toEqual(errors);
  });
});

describe('deprecation warning', () => {
  it.each([
    { versions: [{ name: 'v1beta1', served: true, deprecated: true }, { name: 'v1', served: true, storage: true }], v: 'v1beta1', warning: 'example.cluster.io/v1beta1 Widget is deprecated; use example.cluster.io/v1 Widget' },
    { versions: [{ name: 'v1alpha1', served: true, deprecated: true }, { name: 'v1beta1', served: true }, { name: 'v1beta2', served: true, storage: true }], v: 'v1alpha1', warning: 'example.cluster.io/v1alpha1 Widget is deprecated; use example.cluster.io/v1beta2 Widget' },
    { versions: [{ name: 'v2', served: true, deprecated: true, storage: true }, { name: 'v1', served: true }], v: 'v2', warning: 'example.cluster.io/v2 Widget is deprecated' },
    { versions: [{ name: 'v1', served: true, deprecated: true, deprecationWarning: 'use something else' }], v: 'v1', warning: 'use something else' },
    { versions: [{ name: 'v1', served: true }], v: 'v1', warning: undefined },
  ])('$v -> $warning', ({ versions, v, warning }) => {
    expect(deprecationWarning(crd(versions), v)).toBe(warning);
  });
});
