// The managedFields of an object nested deeper than DEEP_LEVELS are marked deep, so that its JSON text
// takes the serializer linear in depth (runtime/json/stringify.ts): on a create (one walk), an update
// (field sets encoded) and a server-side apply; a shallow object's are not (V8's own JSON.stringify).

import { describe, expect, it } from 'vitest';
import { isMarkedDeep } from '../json/stringify.ts';
import { apply } from './apply.ts';
import { updateManagedFields } from './managed-fields.ts';

/** `{a: {a: ... leaf}}` under spec, `depth` levels (untyped, as preserved fields are). */
function nested(depth: number, leaf: unknown): Record<string, unknown> {
  let o: unknown = leaf;
  for (let i = 0; i < depth; i++) o = { a: o };
  return { apiVersion: 'v1', kind: 'X', metadata: { name: 'x' }, spec: o };
}

const now = '2026-01-01T00:00:00Z';
const as = (manager: string) => ({ manager, apiVersion: 'v1', now });
const managedFieldsOf = (o: Record<string, unknown>): unknown => (o.metadata as Record<string, unknown>).managedFields;

describe('managedFields of deep objects are marked deep', () => {
  const writes: { name: string; write: (depth: number) => Record<string, unknown> }[] = [
    { name: 'create', write: (d) => updateManagedFields(undefined, nested(d, 1), as('a'), undefined, {}) },
    { name: 'update by another manager', write: (d) => updateManagedFields(updateManagedFields(undefined, nested(d, 1), as('a'), undefined, {}), nested(d, 2), as('b'), undefined, {}) },
    { name: 'server-side apply', write: (d) => apply(undefined, nested(d, 1), { manager: 'm', force: false, apiVersion: 'v1', now }, undefined, {}).object },
  ];
  for (const w of writes) {
    it(w.name, () => {
      expect(isMarkedDeep(managedFieldsOf(w.write(1500)))).toBe(true);
      expect(isMarkedDeep(managedFieldsOf(w.write(10)))).toBe(false);
    });
  }
});
