// The conversion webhook caBundle check of a CRD update (upstream validateCustomResourceConversion
// with allowInvalidCABundle): an invalid bundle is refused only on an update of an Established CRD
// whose stored bundle is unset or valid. Create never checks it (the CRD is not established yet).
import { describe, expect, it } from 'vitest';
import { makePKI } from '../admission/webhook-fixture.ts';
import type { CustomResourceDefinition } from './types.ts';
import * as crdObjectRules from '../../out/validators/customresourcedefinition.ts';
import { validateCRD, validateCRDUpdate } from './validate-crd.ts';

const pki = makePKI();
const BAD = 'Cg=='; // a line break: no PEM block (upstream's integration test uses the same bundle)
const FIELD = 'spec.conversion.webhook.clientConfig.caBundle';
const MESSAGE = `Invalid value: "${BAD}": unable to load root certificates: unable to parse bytes as PEM block`;

function crd(o: { caBundle?: string; strategy?: 'None' | 'Webhook'; established?: boolean }): CustomResourceDefinition {
  const strategy = o.strategy ?? 'Webhook';
  const conversion =
    strategy === 'None'
      ? { strategy }
      : { strategy, webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://127.0.0.1:9443/convert', ...(o.caBundle === undefined ? {} : { caBundle: o.caBundle }) } } };
  return {
    apiVersion: 'apiextensions.cluster.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.cluster.io', resourceVersion: '7' },
    spec: {
      group: 'example.cluster.io',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      conversion,
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-cluster-preserve-unknown-fields': true } } }],
    },
    status: {
      storedVersions: ['v1'],
      conditions: o.established ? [{ type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted', lastTransitionTime: '2026-07-01T10:00:00Z' }] : [],
    },
  };
}

describe('conversion caBundle on CRD writes', () => {
  it('create accepts an invalid caBundle (the CRD is not established yet)', () => {
    expect(validateCRD(crd({ caBundle: BAD }), { objectRules: crdObjectRules })).toEqual([]);
  });

  const refused = [{ field: FIELD, reason: 'FieldValueInvalid', message: MESSAGE }];
  it.each([
    { name: 'old not established', old: { caBundle: pki.caBundle }, want: [] },
    { name: 'old established without caBundle', old: { established: true }, want: refused },
    { name: 'old established with a valid caBundle', old: { established: true, caBundle: pki.caBundle }, want: refused },
    { name: 'old established with an invalid caBundle (kept invalid)', old: { established: true, caBundle: 'bm9wZQ==' }, want: [] },
    { name: 'old established with strategy None', old: { established: true, strategy: 'None' as const }, want: refused },
  ])('update to an invalid caBundle, $name', ({ old, want }) => {
    expect(validateCRDUpdate(crd({ caBundle: BAD, established: old.established }), crd(old), { objectRules: crdObjectRules })).toEqual(want);
  });

  it.each([
    { name: 'a valid caBundle', next: { caBundle: pki.caBundle } },
    { name: 'no caBundle (system roots)', next: {} },
    { name: 'strategy None', next: { strategy: 'None' as const } },
  ])('update of an established CRD to $name is accepted', ({ next }) => {
    expect(validateCRDUpdate(crd({ ...next, established: true }), crd({ established: true, caBundle: pki.caBundle }), { objectRules: crdObjectRules })).toEqual([]);
  });
});
