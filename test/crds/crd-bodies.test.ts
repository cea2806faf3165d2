// Every generated CRD body is a valid CustomResourceDefinition by the API's own rules (the
// generated CustomResourceDefinition validator), and its schema compiles as the server would
// compile a CRD schema: with the CRD cost budget, rules and all.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { validate } from '../../out/validators/customresourcedefinition.ts';
import { compileSchema } from '../../runtime/schema/index.ts';
import { celRuleEngine } from '../../runtime/cel/index.ts';
import type { Schema } from '../../runtime/schema/types.ts';

const dir = join(import.meta.dirname, '..', '..', 'out', 'crds');
const bodies = readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()
  .map((f) => [f, parse(readFileSync(join(dir, f), 'utf8')) as { spec: { versions: Array<{ schema: { openAPIV3Schema: Schema } }> } }] as const);

describe('generated CRD bodies', () => {
  it('cover every resource', () => expect(bodies.length).toBe(14));

  it.each(bodies)('%s is a valid CustomResourceDefinition', (_f, crd) => {
    expect(validate(crd)).toEqual([]);
  });

  it.each(bodies)('%s compiles with the CRD cost budget', (_f, crd) => {
    expect(() => compileSchema(crd.spec.versions[0].schema.openAPIV3Schema, { cel: celRuleEngine })).not.toThrow();
  });
});
