// Every generated CRD body is a valid CustomResourceDefinition by the API's own rules (the
// generated CustomResourceDefinition validator) and passes every check the server runs when a CRD
// is written (structural schema, rule compilation with upstream's cost limits).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import * as crdObjectRules from '../../out/validators/customresourcedefinition.ts';
import { validateCRD } from '../../runtime/crd/index.ts';
import type { Schema } from '../../runtime/schema/types.ts';

const dir = join(import.meta.dirname, '..', '..', 'out', 'crds');
const bodies = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()
  .map((f) => [f, parse(readFileSync(join(dir, f), 'utf8')) as { spec: { versions: Array<{ schema: { openAPIV3Schema: Schema } }> } }] as const);

describe('generated CRD bodies', () => {
  it('cover every resource', () => expect(bodies.length).toBe(16));

  it.each(bodies)('%s is a valid CustomResourceDefinition', (_f, crd) => {
    expect(crdObjectRules.validate(crd)).toEqual([]);
  });

  it.each(bodies)('%s passes the checks the server runs when a CRD is written', (_f, crd) => {
    expect(validateCRD(crd, { objectRules: crdObjectRules })).toEqual([]);
  });
});
