// Custom resources validated, pruned and defaulted through real CRDs: one generated (out/crds) and
// one hand-written with CEL rules, a transition rule, defaults, scale and selectable fields.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildCustomResourceVersion, CustomResourceCache } from './custom-resource.ts';
import type { CustomResourceDefinition } from './types.ts';
import * as crdObjectRules from '../../out/validators/customresourcedefinition.ts';
import { validateCRD } from './validate-crd.ts';

const root = join(import.meta.dirname, '..', '..');
const load = (p: string) => parse(readFileSync(join(root, p), 'utf8')) as CustomResourceDefinition;
const widgets = load('test/fixtures/cli/crds/widgets.example.cluster.io.yaml');
const storageClasses = load('out/crds/storageclasses.storage.crd.cluster.io.yaml');
const text = (e: { field: string; message: string }[]) => e.map((x) => `${x.field}: ${x.message}`);

const widget = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'example.cluster.io/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' }, spec, ...extra,
});

describe('the CRDs themselves', () => {
  it.each([['widgets', widgets], ['storageclasses (generated)', storageClasses]])('%s is a valid CRD', (_n, crd) => {
    expect(validateCRD(crd, { objectRules: crdObjectRules })).toEqual([]);
  });
});

describe('a generated CRD (StorageClass mirror)', () => {
  const v = buildCustomResourceVersion(storageClasses, 'v1');
  it.each([
    { name: 'valid', obj: { apiVersion: 'storage.crd.cluster.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'csi.example.com' }, errors: [] },
    { name: 'missing provisioner', obj: { apiVersion: 'storage.crd.cluster.io/v1', kind: 'StorageClass', metadata: { name: 'fast' } }, errors: ['provisioner: Required value'] },
    { name: 'bad name', obj: { apiVersion: 'storage.crd.cluster.io/v1', kind: 'StorageClass', metadata: { name: 'Fast!' }, provisioner: 'p' }, errors: [expect.stringMatching(/^metadata\.name: Invalid value: "Fast!": a lowercase RFC 1123 subdomain/)] },
  ])('$name', ({ obj, errors }) => {
    const r = v.write(structuredClone(obj) as Record<string, unknown>);
    expect(text(r.errors)).toEqual(errors);
  });
  it('runs its transition rules on update', () => {
    const old = { apiVersion: 'storage.crd.cluster.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'a', parameters: { x: '1' } };
    const next = { ...old, provisioner: 'b', parameters: { x: '2' } };
    expect(text(v.validateUpdate(next, old))).toContain('parameters: Forbidden: updates to this field are forbidden.');
  });
  it('is cluster-scoped with the CRD names', () => {
    expect(v.descriptor).toMatchObject({ kind: 'StorageClass', listKind: 'StorageClassList', group: 'storage.crd.cluster.io', version: 'v1', plural: 'storageclasses', namespaced: false, fieldSelectors: ['metadata.name'] });
    expect(v.printerColumns.map((c) => c.name)).toEqual(['Provisioner', 'ReclaimPolicy', 'VolumeBindingMode', 'AllowVolumeExpansion', 'Age']);
    const bare = structuredClone(storageClasses);
    delete bare.spec.versions[0].additionalPrinterColumns;
    const b = buildCustomResourceVersion(bare, 'v1');
    expect(b.descriptor.printerColumns).toEqual([]);
    expect(b.printerColumns.map((c) => [c.name, c.type, c.jsonPath])).toEqual([['Age', 'date', '.metadata.creationTimestamp']]);
  });
});

describe('a hand-written CRD with rules', () => {
  const v = buildCustomResourceVersion(widgets, 'v1');

  it.each([
    { name: 'valid', spec: { color: 'red', replicas: 3 }, errors: [] },
    { name: 'enum and required', spec: { replicas: 3, size: 'x' }, errors: ['spec.color: Required value'] },
    { name: 'unsupported enum value', spec: { color: 'pink' }, errors: ['spec.color: Unsupported value: "pink": supported values: "red", "green", "blue"'] },
    { name: 'rule with fieldPath', spec: { color: 'red', replicas: 20 }, errors: ['spec.replicas: Invalid value: "object": more than 10 replicas need size large'] },
    { name: 'rule satisfied thanks to size', spec: { color: 'red', replicas: 20, size: 'large' }, errors: [] },
    { name: 'maximum', spec: { color: 'red', replicas: 200, size: 'large' }, errors: ['spec.replicas: Invalid value: 200: spec.replicas in body should be less than or equal to 100'] },
    { name: 'duplicate list-map key', spec: { color: 'red', ports: [{ port: 80 }, { port: 80 }] }, errors: ['spec.ports[1]: Duplicate value: {"port":80}'] },
  ])('create: $name', ({ spec, errors }) => {
    expect(text(v.write(widget(spec)).errors)).toEqual(errors);
  });

  it('transition rules run only on update', () => {
    const old = v.write(widget({ color: 'red', replicas: 5, mode: 'a' })).object;
    expect(text(v.write(widget({ color: 'red', replicas: 2, mode: 'b' })).errors)).toEqual([]);
    expect(text(v.write(widget({ color: 'red', replicas: 2, mode: 'b' }), old).errors)).toEqual([
      'spec.mode: Forbidden: mode is immutable',
      'spec: Invalid value: "object": replicas may not decrease from 5',
    ]);
    expect(text(v.write(widget({ color: 'red', replicas: 6, mode: 'a' }), old).errors)).toEqual([]);
  });

  it('prunes unknown fields (metadata too) and applies defaults, including in list items', () => {
    const r = v.write(widget({ color: 'red', extra: 1, ports: [{ port: 80, junk: true }] }, { status: { replicas: 1, other: 'x' }, metadata: { name: 'w1', namespace: 'default', bogus: 1 }, topLevel: true }));
    expect(r.errors).toEqual([]);
    expect(r.pruned.sort()).toEqual(['metadata.bogus', 'spec.extra', 'spec.ports[0].junk', 'status.other', 'topLevel']);
    expect(r.object).toEqual({
      apiVersion: 'example.cluster.io/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' },
      spec: { color: 'red', size: 'medium', ports: [{ port: 80, protocol: 'TCP' }] }, status: { replicas: 1 },
    });
  });

  it('keeps everything under x-cluster-preserve-unknown-fields', () => {
    const beta = buildCustomResourceVersion(widgets, 'v1beta1');
    const r = beta.write({ apiVersion: 'example.cluster.io/v1beta1', kind: 'Widget', metadata: { name: 'w' }, anything: { goes: 1 } });
    expect(r.pruned).toEqual([]);
    expect(r.object.anything).toEqual({ goes: 1 });
    expect(beta.warning).toBe('example.cluster.io/v1beta1 Widget is deprecated; use example.cluster.io/v1 Widget');
  });

  it('describes the resource for the server', () => {
    expect(v.descriptor).toMatchObject({
      kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget', shortNames: ['wd'], namespaced: true, subresources: ['status'],
      maturity: 'stable', generation: true, fieldSelectors: ['metadata.name', 'metadata.namespace', 'spec.color', 'spec.replicas'],
    });
    expect(v.printerColumns).toEqual([
      { name: 'Color', type: 'string', jsonPath: '.spec.color', description: '' },
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', description: '', priority: 1 },
    ]);
    const obj = widget({ color: 'blue', replicas: 4 });
    expect(v.fieldValue(obj, 'spec.color')).toBe('blue');
    expect(v.fieldValue(obj, 'spec.replicas')).toBe('4');
    expect(v.fieldValue(widget({ color: 'blue' }), 'spec.replicas')).toBe('');
    expect(v.fieldValue(obj, 'metadata.namespace')).toBe('default');
    expect(v.fieldValue(obj, 'spec.size')).toBeUndefined();
  });

  it('reads and writes the scale subresource', () => {
    const obj = widget({ color: 'red', replicas: 3 }, { status: { replicas: 2, selector: 'app=w' } }) as Record<string, unknown>;
    expect(v.scale?.toScale(obj)).toEqual({
      kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'w1', namespace: 'default' }, spec: { replicas: 3 }, status: { replicas: 2, selector: 'app=w' },
    });
    expect(v.scale?.read(widget({ color: 'red', replicas: 1 }))).toEqual({ specReplicas: 1, statusReplicas: 0, selector: '' });
    expect(() => v.scale?.read(widget({ color: 'red' }))).toThrow('the spec replicas field ".spec.replicas" does not exist');
    v.scale?.setReplicas(obj, 7);
    expect((obj.spec as Record<string, unknown>).replicas).toBe(7);
  });

  it('converts with strategy None by changing only apiVersion', () => {
    const obj = widget({ color: 'red' });
    expect(v.convert(obj, 'v1beta1')).toEqual({ ...obj, apiVersion: 'example.cluster.io/v1beta1' });
  });

  it('is built once per CRD version', () => {
    const cache = new CustomResourceCache();
    const crd = { ...widgets, metadata: { ...widgets.metadata, uid: 'u1', generation: 1 } };
    const a = cache.get(crd, 'v1');
    expect(cache.get(structuredClone(crd), 'v1')).toBe(a);
    expect(cache.get({ ...crd, metadata: { ...crd.metadata, generation: 2 } }, 'v1')).not.toBe(a);
    const noGen = structuredClone(widgets);
    expect(cache.get(noGen, 'v1')).toBe(cache.get(noGen, 'v1'));
  });
});

describe('a stored CRD whose rule no longer compiles (a stricter engine since it was written)', () => {
  const crd = structuredClone(widgets);
  const schema = crd.spec.versions[0].schema!.openAPIV3Schema as Record<string, Record<string, Record<string, unknown>>>;
  schema.properties.spec['x-cluster-validations'] = [{ rule: 'has(self.undeclared)' }];
  it('is refused when written', () => {
    expect(validateCRD(crd, { objectRules: crdObjectRules }).map((e) => e.message).join('\n')).toContain("undefined field 'undeclared'");
  });
  it('is served, and every object gets the rule compile error at the rule\'s node (upstream)', () => {
    const v = buildCustomResourceVersion(crd, crd.spec.versions[0].name);
    expect(text(v.validate(widget({ color: 'red' })))).toEqual([
      `spec: Invalid value: "object": rule compile error: compilation failed: ERROR: <input>:1:4: undefined field 'undeclared'`,
    ]);
  });
});
