import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FieldSet } from './fieldpath.ts';
import { filterComparison, ignoredSet, STRIP_SET } from './managed-fields.ts';
import type { JsonObject } from '../json/is-object.ts';
import { defs, kind } from './test-defs.ts';
import { addedFieldsV1, compare, TypedValueError } from './typed.ts';

// addedFieldsV1 writes a create's FieldsV1 in one walk; the general comparison of {} with the
// object (added fields, minus the ignored ones, minus the stripped members, as FieldsV1) is its
// reference: same entries, same key order, same errors.

type Outcome = { fieldsV1: string } | { error: 'TypedValueError' } | { fallback: true };

function viaSets(obj: JsonObject, kindName: string, ignored: FieldSet, strip: FieldSet): Outcome {
  try {
    return { fieldsV1: JSON.stringify(filterComparison(compare({}, obj, kind(kindName), defs), ignored).added.difference(strip).toFieldsV1()) };
  } catch (e) {
    if (e instanceof TypedValueError) return { error: 'TypedValueError' };
    throw e;
  }
}

function direct(obj: JsonObject, kindName: string, ignored: FieldSet, strip: FieldSet): Outcome {
  try {
    const v = addedFieldsV1(obj, kind(kindName), defs, ignored, strip);
    return v === undefined ? { fallback: true } : { fieldsV1: JSON.stringify(v) };
  } catch (e) {
    if (e instanceof TypedValueError) return { error: 'TypedValueError' };
    throw e;
  }
}

const VARIANTS: readonly (readonly [string, FieldSet, FieldSet])[] = [
  ['nothing ignored or stripped', new FieldSet(), new FieldSet()],
  ['metadata stripped (a create)', new FieldSet(), STRIP_SET],
  ['status ignored, metadata stripped', ignoredSet([['status']]), STRIP_SET],
  ['spec ignored (a /status write)', ignoredSet([['spec'], ['metadata', 'labels']]), STRIP_SET],
];

const objectsDir = fileURLToPath(new URL('../../test/fixtures/objects', import.meta.url));
const objects = readdirSync(objectsDir).sort().flatMap((dir) =>
  readdirSync(join(objectsDir, dir))
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((f) => {
      const fx = parse(readFileSync(join(objectsDir, dir, f), 'utf8')) as { object?: JsonObject; old?: JsonObject };
      return [fx.object, fx.old].filter((o): o is JsonObject => typeof o?.kind === 'string' && o.kind in defs).map((o) => [`${dir}/${f}`, o] as const);
    }),
);

describe('addedFieldsV1 = compare({}, obj).added, filtered and stripped, as FieldsV1', () => {
  it('reads the object fixtures', () => expect(objects.length).toBeGreaterThan(300));

  describe.each(VARIANTS)('%s', (_name, ignored, strip) => {
    it.each(objects)('%s', (_file, obj) => {
      const got = direct(obj, obj.kind as string, ignored, strip);
      expect('fallback' in got).toBe(false);
      expect(got).toEqual(viaSets(obj, obj.kind as string, ignored, strip));
    });
  });

  // Lists: map lists keyed by fields, set lists by value, atomic lists as leaves, duplicates.
  const pv = (spec: JsonObject): JsonObject => ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv' }, spec });
  const csiNode = (drivers: unknown[]): JsonObject => ({ apiVersion: 'storage.cluster.io/v1', kind: 'CSINode', metadata: { name: 'n' }, spec: { drivers } });
  const CASES: readonly (readonly [string, JsonObject])[] = [
    ['map list items in key order', csiNode([{ name: 'b', nodeID: '1' }, { name: 'a', nodeID: '2', topologyKeys: ['z', 'y'] }])],
    ['a map list item without its key', csiNode([{ nodeID: '1' }])],
    ['a map list item that is not an object', csiNode(['x'])],
    ['two map list items with one key', csiNode([{ name: 'a', nodeID: '1' }, { name: 'a', nodeID: '2' }])],
    ['set list values', pv({ capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce', 'ReadOnlyMany'], mountOptions: ['b', 'a', 'b'], hostPath: { path: '/x' } })],
    ['empty maps and lists are leaves', pv({ capacity: {}, accessModes: [], hostPath: { path: '/x' } })],
    ['fields without a schema', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: {} }, data: { a: 'b' }, extra: { nested: { deep: 1 }, list: [1, 2] } }],
    ['only stripped metadata', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'n', uid: 'u' } }],
  ];
  describe.each(VARIANTS)('%s: lists and edge cases', (_name, ignored, strip) => {
    it.each(CASES)('%s', (_case, obj) => {
      expect(direct(obj, obj.kind as string, ignored, strip)).toEqual(viaSets(obj, obj.kind as string, ignored, strip));
    });
  });

  it('declines where two list items differ but share one FieldsV1 key (the comparison merges them)', () => {
    const obj = csiNode([{ name: { x: 1, y: 2 }, nodeID: '1' }, { name: { y: 2, x: 1 }, topologyKeys: ['t'] }]);
    expect(direct(obj, 'CSINode', new FieldSet(), STRIP_SET)).toEqual({ fallback: true });
    expect(viaSets(obj, 'CSINode', new FieldSet(), STRIP_SET)).toHaveProperty('fieldsV1');
  });

  it('writes `.` for a granular map that is a member, never for one that is stripped', () => {
    const got = direct({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: { a: 'b' } }, data: { k: 'v' } }, 'ConfigMap', new FieldSet(), STRIP_SET);
    expect(got).toEqual({ fieldsV1: JSON.stringify({ 'f:data': { '.': {}, 'f:k': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } }) });
  });
});
