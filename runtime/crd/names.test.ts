import { describe, expect, it } from 'vitest';
import { makePKI } from '../admission/webhook-fixture.ts';
import { caBundleError, calculateNames, conditionEquivalent, defaultNames, establishedCondition, reconcileNames, sameNames } from './names.ts';
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

describe('v1 defaulting of spec.names (SetDefaults_CustomResourceDefinitionSpec)', () => {
  it.each([
    { name: 'absent singular and listKind', names: { plural: 'widgets', kind: 'WidgetX' }, want: { plural: 'widgets', kind: 'WidgetX', singular: 'widgetx', listKind: 'WidgetXList' } },
    { name: 'empty singular and listKind', names: { plural: 'widgets', kind: 'Widget', singular: '', listKind: '' }, want: { plural: 'widgets', kind: 'Widget', singular: 'widget', listKind: 'WidgetList' } },
    { name: 'given names are kept', names: { plural: 'widgets', kind: 'Widget', singular: 'wdg', listKind: 'Widgets' }, want: { plural: 'widgets', kind: 'Widget', singular: 'wdg', listKind: 'Widgets' } },
    { name: 'no kind: nothing to default from', names: { plural: 'widgets' }, want: { plural: 'widgets' } },
    { name: 'empty kind: nothing to default from', names: { plural: 'widgets', kind: '' }, want: { plural: 'widgets', kind: '' } },
  ])('$name', ({ names, want }) => {
    expect(defaultNames({ ...names })).toEqual(want);
  });
});

describe('naming controller comparisons', () => {
  it.each([
    { name: 'absent and empty fields are the zero value', a: { plural: 'w', kind: 'W', shortNames: [] }, b: { plural: 'w', kind: 'W', singular: '' }, same: true },
    { name: 'a differing singular', a: { plural: 'w', kind: 'W', singular: 'x' }, b: { plural: 'w', kind: 'W', singular: 'y' }, same: false },
    { name: 'short names in another order', a: { plural: 'w', kind: 'W', shortNames: ['a', 'b'] }, b: { plural: 'w', kind: 'W', shortNames: ['b', 'a'] }, same: false },
    { name: 'nothing accepted yet', a: { plural: 'w', kind: 'W' }, b: undefined, same: false },
  ])('sameNames: $name', ({ a, b, same }) => {
    expect(sameNames(a, b)).toBe(same);
  });

  it.each([
    { name: 'transition time ignored', b: { lastTransitionTime: '2026-07-02T00:00:00Z' }, eq: true },
    { name: 'reason differs', b: { reason: 'Installing' }, eq: false },
    { name: 'message differs', b: { message: 'x' }, eq: false },
    { name: 'status differs', b: { status: 'True' as const }, eq: false },
  ])('conditionEquivalent: $name', ({ b, eq }) => {
    const a = { type: 'Established', status: 'False' as const, reason: 'InvalidCABundle', message: 'The conversion webhook CABundle is invalid', lastTransitionTime: '2026-07-01T00:00:00Z' };
    expect(conditionEquivalent(a, { ...a, ...b })).toBe(eq);
  });
});

describe('conversion webhook caBundle (webhook.ValidateCABundle, client-go rootCertPool)', () => {
  const pki = makePKI();
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  const prefix = 'unable to load root certificates: ';
  it.each([
    { name: 'unset', bundle: undefined, want: undefined },
    { name: 'empty', bundle: '', want: undefined },
    { name: 'a CA certificate', bundle: pki.caBundle, want: undefined },
    { name: 'two certificates without a final line break', bundle: b64(pki.caPem + pki.cert.trimEnd()), want: undefined },
    { name: 'text before the certificate is skipped', bundle: b64(`my CA\n${pki.caPem}`), want: undefined },
    { name: 'a line break only (upstream test "Cg==")', bundle: 'Cg==', want: `${prefix}unable to parse bytes as PEM block` },
    { name: 'not PEM at all', bundle: b64('nope'), want: `${prefix}unable to parse bytes as PEM block` },
    { name: 'a private key only', bundle: b64(pki.key), want: `${prefix}no valid certificate authority data seen` },
    { name: 'a private key and a blank line', bundle: b64(`${pki.key}\n`), want: `${prefix}unable to parse bytes as PEM block` },
    { name: 'a CERTIFICATE block that is no certificate', bundle: b64('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'), want: `${prefix}failed to parse certificate: x509: malformed certificate` },
    {
      name: 'a certificate block with headers is skipped',
      bundle: b64(pki.caPem.replace('-----BEGIN CERTIFICATE-----\n', '-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n')),
      want: `${prefix}no valid certificate authority data seen`,
    },
  ])('$name', ({ bundle, want }) => {
    expect(caBundleError(bundle)).toBe(want);
  });

  /** A CRD whose names the naming controller accepted. */
  const accepted = (conversion?: object): CustomResourceDefinition => {
    const c = crd('b', { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' });
    return {
      ...c,
      spec: { ...c.spec, ...(conversion ? { conversion } : {}) },
      status: { conditions: [{ type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' }] },
    };
  };
  const webhook = (caBundle?: string): object => ({ strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://127.0.0.1:9443/convert', ...(caBundle === undefined ? {} : { caBundle }) } } });
  const established = { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' };
  const invalid = { type: 'Established', status: 'False', reason: 'InvalidCABundle', message: 'The conversion webhook CABundle is invalid' };
  it.each([
    { name: 'no conversion', crd: accepted(), want: established },
    { name: 'strategy None', crd: accepted({ strategy: 'None' }), want: established },
    { name: 'webhook without caBundle (system roots)', crd: accepted(webhook()), want: established },
    { name: 'webhook with a valid caBundle', crd: accepted(webhook(pki.caBundle)), want: established },
    { name: 'webhook with an invalid caBundle', crd: accepted(webhook('Cg==')), want: invalid },
    { name: 'names not accepted yet', crd: { ...accepted(webhook('Cg==')), status: {} }, want: undefined },
  ])('establishing: $name', ({ crd: c, want }) => {
    expect(establishedCondition(c)).toEqual(want);
  });
});
