// The CRD strategy's v1 defaulting of spec.names through the generic Store (upstream
// SetDefaults_CustomResourceDefinitionSpec runs on every decode: create and update alike), and the
// Required checks that follow it when there is no kind to default from.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { customResourceDefinitionResource } from '../../out/routes/customresourcedefinition.ts';
import { namespaceResource } from '../../out/routes/namespace.ts';
import * as validators from '../../out/validators/index.ts';
import { ApiError } from '../errors/api-error.ts';
import { lazyValidator } from '../http/bootstrap.ts';
import { MemoryStorage } from '../storage/memory.ts';
import type { Obj } from '../api/object.ts';
import { Registry } from '../registry/registry.ts';
import type { Store } from '../registry/store.ts';
import { customResourceDefinitionStrategy } from './strategy.ts';

const GROUP = 'example.cluster.io';

function crd(names: Record<string, unknown>): Obj {
  return {
    apiVersion: 'apiextensions.cluster.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names,
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-cluster-preserve-unknown-fields': true } } }],
    },
  };
}

const namesOf = (o: Obj): unknown => (o.spec as Obj).names;

describe('CustomResourceDefinition strategy: spec.names defaulting', () => {
  let storage: MemoryStorage;
  let store: Store;

  beforeEach(async () => {
    storage = new MemoryStorage({ autoCompaction: false });
    const registry = new Registry(storage, [
      { descriptor: namespaceResource, validator: lazyValidator(() => validators.Namespace.createValidator()) },
      { descriptor: customResourceDefinitionResource, validator: lazyValidator(() => validators.CustomResourceDefinition.createValidator()) },
    ], { strategies: { CustomResourceDefinition: customResourceDefinitionStrategy } });
    await registry.init();
    store = registry.storeFor('apiextensions.cluster.io', 'customresourcedefinitions')!;
  });
  afterEach(async () => {
    await storage.close();
  });

  it.each([
    { name: 'absent singular and listKind', names: { plural: 'widgets', kind: 'WidgetX' }, want: { plural: 'widgets', kind: 'WidgetX', singular: 'widgetx', listKind: 'WidgetXList' } },
    { name: 'empty singular and listKind', names: { plural: 'widgets', kind: 'Widget', singular: '', listKind: '' }, want: { plural: 'widgets', kind: 'Widget', singular: 'widget', listKind: 'WidgetList' } },
    { name: 'given names kept', names: { plural: 'widgets', kind: 'Widget', singular: 'wdg', listKind: 'WidgetCollection' }, want: { plural: 'widgets', kind: 'Widget', singular: 'wdg', listKind: 'WidgetCollection' } },
  ])('create, $name: stored defaulted, conversion defaulted to None', async ({ names, want }) => {
    const { object } = await store.create(undefined, crd(names));
    expect(namesOf(object)).toEqual(want);
    expect((object.spec as Obj).conversion).toEqual({ strategy: 'None' });
    expect(namesOf(await store.get(undefined, `widgets.${GROUP}`))).toEqual(want);
  });

  it('update: names dropped from the body are defaulted again', async () => {
    const { object } = await store.create(undefined, crd({ plural: 'widgets', kind: 'Widget', singular: 'wdg', listKind: 'WidgetCollection' }));
    const next = crd({ plural: 'widgets', kind: 'Widget' });
    const { object: updated } = await store.update(undefined, `widgets.${GROUP}`, { ...next, metadata: object.metadata });
    expect(namesOf(updated)).toEqual({ plural: 'widgets', kind: 'Widget', singular: 'widget', listKind: 'WidgetList' });
  });

  it.each([
    { name: 'no kind', names: { plural: 'widgets' } },
    { name: 'empty kind', names: { plural: 'widgets', kind: '' } },
  ])('create with $name: kind, singular and listKind are Required', async ({ names }) => {
    const err = await store.create(undefined, crd(names)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(422);
    expect((err as ApiError).details?.causes).toEqual([
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.names.kind' },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.names.singular' },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.names.listKind' },
    ]);
  });
});
