// The shortcut of validateObjectMeta for valid metadata (objectMetaSurelyValid): wherever it holds,
// the full validation reports nothing (so skipping it changes no answer), and it does hold for the
// common valid metadata it is there for.
import { describe, expect, it } from 'vitest';
import { objectMetaSurelyValid, validateObjectMetaFully, type MetaOptions } from './metadata.ts';
import type { FieldError } from './types.ts';

const ref = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-1', uid: 'd9607e19' };

/** [metadata options, metadata the shortcut must accept (each one valid)] */
const cases: [MetaOptions, unknown[]][] = [
  [{ path: 'metadata', nameSyntax: 'dns1123Subdomain', requireName: true, namespaced: true }, [
    { name: 'web', namespace: 'default' },
    { name: 'a.b-c', namespace: 'kube-system', labels: { app: 'web', 'example.com/tier': '' }, annotations: { 'example.com/Note': 'x' } },
    { name: 'web', namespace: 'default', finalizers: ['example.com/f', 'orphan'], generation: 3, uid: 'u' },
    { name: 'web', namespace: 'default', ownerReferences: [ref, { ...ref, uid: 'other', controller: true }] },
    { name: 'web', namespace: 'default', ownerReferences: [{ ...ref, apiVersion: 'v1', kind: 'Node' }], labels: null },
  ]],
  [{ path: 'metadata', nameSyntax: 'dns1123Label', requireName: true, namespaced: false }, [{ name: 'node-1' }, { name: 'x', namespace: '' }]],
  [{ path: 'metadata', nameSyntax: 'pathSegment', requireName: false, namespaced: null }, [{}, { name: 'A b' }, { namespace: 'ns' }]],
];

/** Metadata of every kind of mistake (and a few valid ones): the shortcut must refuse each one the full validation reports. */
const values: unknown[] = [
  undefined, null, 'x', [], {}, { name: '' }, { name: 'Web' }, { name: 'a..b' }, { name: 'web', generateName: 'web-' }, { generateName: 'web-' },
  { name: 'web', namespace: 'Default' }, { name: 'web', namespace: 'a.b' }, { name: 'web' }, { name: 'web', namespace: 'default', generation: -1 },
  { name: 'web', namespace: 'default', labels: { 'a b': 'x' } }, { name: 'web', namespace: 'default', labels: { a: 'x y' } },
  { name: 'web', namespace: 'default', labels: { a: 1 } }, { name: 'web', namespace: 'default', labels: 'x' },
  { name: 'web', namespace: 'default', annotations: { a: 1 } }, { name: 'web', namespace: 'default', annotations: { 'a/b/c': 'x' } },
  { name: 'web', namespace: 'default', annotations: { a: 'x'.repeat(262144) } }, { name: 'web', namespace: 'default', annotations: { a: 'é'.repeat(90000) } },
  { name: 'web', namespace: 'default', finalizers: ['orphan', 'foregroundDeletion'] }, { name: 'web', namespace: 'default', finalizers: ['a b'] },
  { name: 'web', namespace: 'default', finalizers: [1] }, { name: 'web', namespace: 'default', finalizers: 'x' },
  { name: 'web', namespace: 'default', ownerReferences: 'x' }, { name: 'web', namespace: 'default', ownerReferences: [1] },
  ...[{ apiVersion: '' }, { apiVersion: '/' }, { apiVersion: 'a/' }, { apiVersion: 'a/b/c' }, { apiVersion: 1 }, { kind: '' }, { name: '' }, { uid: '' },
    { uid: 1 }, { apiVersion: 'v1', kind: 'Event' }, { apiVersion: '/v1', kind: 'Event' }, { apiVersion: 'events.k8s.io/v1', kind: 'Event' }]
    .map((bad) => ({ name: 'web', namespace: 'default', ownerReferences: [{ ...ref, ...bad }] })),
  { name: 'web', namespace: 'default', ownerReferences: [{ ...ref, controller: true }, { ...ref, uid: 'b', controller: true }] },
  Object.create({ name: 'web', namespace: 'default' }),
];

function reports(meta: unknown, o: MetaOptions): FieldError[] {
  const out: FieldError[] = [];
  validateObjectMetaFully(meta, o, out);
  return out;
}

describe('objectMetaSurelyValid', () => {
  it.each(cases)('%j', (o, holdsFor) => {
    for (const v of [...values, ...holdsFor]) if (objectMetaSurelyValid(v, o)) expect(reports(v, o), JSON.stringify(v)?.slice(0, 200)).toEqual([]);
    for (const v of holdsFor) expect(objectMetaSurelyValid(v, o), JSON.stringify(v)).toBe(true);
    expect(values.filter((v) => reports(v, o).length > 0).length).toBeGreaterThan(10);
  });
});
