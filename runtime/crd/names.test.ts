import { describe, expect, it } from 'vitest';
import { calculateNames, reconcileNames } from './names.ts';
import type { CRDNames, CustomResourceDefinition } from './types.ts';

const crd = (name: string, names: CRDNames, accepted?: CRDNames): CustomResourceDefinition => ({
  metadata: { name: `${names.plural}.example.cluster.io`, uid: name },
  spec: { group: 'example.cluster.io', scope: 'Namespaced', names, versions: [{ name: 'v1', served: true, storage: true }] },
  ...(accepted ? { status: { acceptedNames: accepted } } : {}),
});
const existing = crd('a', { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] }, { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] });

describe('NamesAccepted', () => {
  it.each([
    { name: 'no conflicts', names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' }, reason: 'NoConflicts', message: 'no conflicts found', status: 'True' },
    { name: 'plural', names: { plural: 'widget', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' }, reason: 'PluralConflict', message: '"widget" is already in use', status: 'False' },
    { name: 'singular', names: { plural: 'gizmos', singular: 'wd', kind: 'Gizmo', listKind: 'GizmoList' }, reason: 'SingularConflict', message: '"wd" is already in use', status: 'False' },
    { name: 'short names', names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList', shortNames: ['gz', 'widgets'] }, reason: 'ShortNamesConflict', message: '"widgets" is already in use', status: 'False' },
    { name: 'kind', names: { plural: 'gizmos', singular: 'gizmo', kind: 'WidgetList', listKind: 'GizmoList' }, reason: 'KindConflict', message: '"WidgetList" is already in use', status: 'False' },
    { name: 'list kind', names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'Widget' }, reason: 'ListKindConflict', message: '"Widget" is already in use', status: 'False' },
  ])('$name', ({ names, reason, message, status }) => {
    const r = calculateNames(crd('b', names), { crds: [existing] });
    expect(r.namesAccepted).toEqual({ type: 'NamesAccepted', status, reason, message });
    if (status === 'True') {
      expect(r.acceptedNames).toEqual(names);
      expect(r.established).toEqual({ type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' });
    } else {
      expect(r.established).toEqual({ type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' });
    }
  });

  it('accepts the names that do not conflict and keeps the others out', () => {
    const r = calculateNames(crd('b', { plural: 'gizmos', singular: 'widget', kind: 'Gizmo', listKind: 'GizmoList' }), { crds: [existing] });
    expect(r.acceptedNames).toEqual({ plural: 'gizmos', kind: 'Gizmo', listKind: 'GizmoList' });
  });

  it('ignores other groups and checks built-in resources of the same group', () => {
    const other = { ...existing, spec: { ...existing.spec, group: 'other.cluster.io' } };
    expect(calculateNames(crd('b', existing.spec.names), { crds: [other] }).namesAccepted.status).toBe('True');
    const r = calculateNames(crd('b', { plural: 'storageclasses', singular: 'sc2', kind: 'SC2', listKind: 'SC2List' }), {
      crds: [],
      builtins: [{ group: 'example.cluster.io', plural: 'storageclasses', singular: 'storageclass', shortNames: ['sc'], kind: 'StorageClass' }],
    });
    expect(r.namesAccepted).toMatchObject({ status: 'False', reason: 'PluralConflict', message: '"storageclasses" is already in use' });
  });

  it('a CRD does not conflict with its own accepted names', () => {
    expect(calculateNames(existing, { crds: [existing] }).namesAccepted.status).toBe('True');
  });

  it('reconciles to Established True with upstream reasons', () => {
    const status = reconcileNames(crd('b', { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' }), { crds: [existing] }, '2026-07-01T10:00:00Z');
    expect(status.conditions).toEqual([
      { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found', lastTransitionTime: '2026-07-01T10:00:00Z' },
      { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted', lastTransitionTime: '2026-07-01T10:00:00Z' },
    ]);
  });
});
