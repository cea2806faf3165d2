// The Store's CREATE, one case per row: what is stored and answered, or the upstream error.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AdmissionPlugin } from '../../admission/chain.ts';
import type { Obj } from '../../api/object.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { WriteOptions } from '../store-types.ts';
import { rejection } from '../../errors/test-support.ts';
import { testRegistry, type TestRegistry } from './test-registry.ts';

interface Case {
  name: string;
  namespace?: string;
  body: Obj;
  opts?: WriteOptions;
  /** Fields the answer's metadata must have. */
  wantMeta?: Obj;
  wantWarnings?: string[];
  /** Whether the object is in storage afterwards (default: true when no error). */
  stored?: boolean;
  wantError?: { code: number; message: string };
}

const cm = (metadata: Obj, extra: Obj = {}): Obj => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata, ...extra });

const cases: Case[] = [
  { name: 'server-owned metadata set, apiVersion and kind filled', body: { metadata: { name: 'a' } }, wantMeta: { name: 'a', namespace: 'default' } },
  { name: 'generateName', body: { metadata: { generateName: 'gen-' } }, wantMeta: { generateName: 'gen-' } },
  {
    name: 'another kind in the body',
    body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a' } },
    wantError: { code: 400, message: 'the kind in the data (Secret) does not match the expected kind (ConfigMap)' },
  },
  {
    name: 'another namespace in the body',
    body: cm({ name: 'a', namespace: 'other' }),
    wantError: { code: 400, message: 'the namespace of the provided object does not match the namespace sent on the request' },
  },
  {
    name: 'an unknown field under Strict',
    body: cm({ name: 'a' }, { bogus: 1 }),
    opts: { fieldValidation: 'Strict' },
    wantError: { code: 400, message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"' },
  },
  { name: 'an unknown field under Warn', body: cm({ name: 'a' }, { bogus: 1 }), wantWarnings: ['unknown field "bogus"'] },
  { name: 'an unknown field under Ignore', body: cm({ name: 'a' }, { bogus: 1 }), opts: { fieldValidation: 'Ignore' }, wantWarnings: [] },
  {
    name: 'an invalid name',
    body: cm({ name: 'A_B' }),
    wantError: { code: 422, message: expect.stringMatching(/^ConfigMap "A_B" is invalid: metadata.name: Invalid value: "A_B"/) as unknown as string },
  },
  { name: 'into a missing namespace', namespace: 'nowhere', body: cm({ name: 'a' }), wantError: { code: 404, message: 'namespaces "nowhere" not found' } },
  { name: 'dry run', body: cm({ name: 'a' }), opts: { dryRun: true }, wantMeta: { resourceVersion: '' }, stored: false },
];

describe('Store.create', () => {
  let t: TestRegistry;
  beforeEach(async () => {
    t = await testRegistry();
  });
  afterEach(async () => {
    await t.close();
  });

  it.each(cases)('$name', async (c) => {
    const ns = c.namespace ?? 'default';
    if (c.wantError) {
      const e = await rejection(t.configMaps.create(ns, structuredClone(c.body), c.opts));
      expect({ code: e.code, message: e.message }).toEqual(c.wantError);
      return;
    }
    const r = await t.configMaps.create(ns, structuredClone(c.body), c.opts);
    const m = r.object.metadata as Obj;
    expect(r.object).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(m).toMatchObject(c.wantMeta ?? {});
    expect(typeof m.uid).toBe('string');
    expect(m.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    if (c.wantWarnings) expect(r.warnings).toEqual(c.wantWarnings);
    const stored = await t.configMaps.get(ns, m.name as string).catch(() => undefined);
    expect(stored !== undefined).toBe(c.stored ?? true);
    if (stored) expect((stored.metadata as Obj).resourceVersion).toBe(m.resourceVersion);
  });

  it('answers AlreadyExists for a taken name', async () => {
    await t.configMaps.create('default', cm({ name: 'a' }));
    const e = await rejection(t.configMaps.create('default', cm({ name: 'a' })));
    expect([e.code, e.reason, e.message]).toEqual([409, 'AlreadyExists', 'configmaps "a" already exists']);
  });

  it('runs the admission chain once: its warnings come back, its rejection stops the write and carries the warnings so far', async () => {
    const seen: string[] = [];
    const warn: AdmissionPlugin = { name: 'warn', validate: async (check) => (seen.push(`${check.operation} ${check.name}`), ['careful']) };
    const deny: AdmissionPlugin = {
      name: 'deny',
      validate: async (check) => {
        if (check.name === 'no') throw ApiError.forbidden({ group: '', plural: 'configmaps' }, 'no', 'denied');
        return [];
      },
    };
    t.registry.admission.add(warn);
    t.registry.admission.add(deny);
    const ok = await t.configMaps.create('default', cm({ name: 'yes' }));
    expect(ok.warnings).toEqual(['careful']);
    const e = await rejection(t.configMaps.create('default', cm({ name: 'no' })));
    expect([e.code, e.warnings]).toEqual([403, ['careful']]);
    expect(await t.configMaps.get('default', 'no').catch((x: ApiError) => x.code)).toBe(404);
    expect(seen).toEqual(['CREATE yes', 'CREATE no']);
  });
});
