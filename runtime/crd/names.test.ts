import { describe, expect, it } from 'vitest';
import { calculateNames, reconcileNames } from './names.ts';
import type { CRDNames, CustomResourceDefinition } from './types.ts';
import * as validators from '../../out/validators/index.ts';

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

describe('acceptedNames on conflict (upstream naming controller)', () => {
  const statusValidator = validators.CustomResourceDefinition.createValidator({});
  /** A CRD object the generated validator takes (a schema on its version). */
  const object = (c: CustomResourceDefinition): Record<string, unknown> => ({
    apiVersion: 'apiextensions.cluster.io/v1',
    kind: 'CustomResourceDefinition',
    ...c,
    spec: { ...c.spec, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }] },
  });
  const cases: { name: string; names: CRDNames; accepted?: CRDNames; want: CRDNames }[] = [
    {
      name: 'fresh CRD, kind taken: kind written as "", the rest accepted',
      names: { plural: 'gizmos', singular: 'gizmo', kind: 'Widget', listKind: 'GizmoList' },
      want: { plural: 'gizmos', singular: 'gizmo', kind: '', listKind: 'GizmoList' },
    },
    {
      name: 'fresh CRD, plural taken: plural written as ""',
      names: { plural: 'wd', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
      want: { plural: '', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
    },
    {
      name: 'accepted CRD adding a taken short name keeps its old short names',
      names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList', shortNames: ['gz', 'wd'] },
      accepted: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList', shortNames: ['gz'] },
      want: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList', shortNames: ['gz'] },
    },
    {
      name: 'accepted CRD renaming its singular to a taken one keeps the old singular',
      names: { plural: 'gizmos', singular: 'widget', kind: 'Gizmo', listKind: 'GizmoList', categories: ['all'] },
      accepted: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
      want: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList', categories: ['all'] },
    },
  ];
  for (const c of cases) {
    it(`${c.name}; the /status rules accept it`, () => {
      const r = calculateNames(crd('b', c.names, c.accepted), { crds: [existing] });
      expect(r.namesAccepted.status).toBe('False');
      expect(r.acceptedNames).toEqual(c.want);
      const obj = { ...object(crd('b', c.names)), status: { acceptedNames: r.acceptedNames, conditions: [{ ...r.namesAccepted, lastTransitionTime: '2026-07-01T10:00:00Z' }], storedVersions: ['v1'] } };
      const old = { ...obj, status: { storedVersions: ['v1'] } };
      expect(statusValidator.validateUpdate(obj, old)).toEqual([]);
    });
  }

  it('spec.names still requires a non-empty plural and kind (upstream: required for spec, not for status)', () => {
    for (const [names, field] of [
      [{ plural: 'gizmos', singular: 'gizmo', kind: '', listKind: 'GizmoList' }, 'spec.names.kind'],
      [{ plural: '', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' }, 'spec.names.plural'],
    ] as const) {
      const obj = object(crd('b', names));
      // Only the Required error at the field (no syntax error for ""); plural "" also breaks metadata.name.
      expect(statusValidator.validate(obj).filter((e) => e.field === field)).toEqual([{ field, reason: 'FieldValueRequired', message: 'Required value' }]);
    }
  });
});
