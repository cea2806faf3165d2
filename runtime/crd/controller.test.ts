// The CRD controller against an in-memory registry: the naming outcome it writes through /status
// (upstream naming controller: accept what does not conflict, keep the old value of what does),
// and that a CRD whose names conflict is neither established nor served until the names free up;
// the establishing controller's InvalidCABundle for a conversion webhook whose caBundle is not PEM.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { customResourceDefinitionResource } from '../../out/routes/customresourcedefinition.ts';
import { namespaceResource } from '../../out/routes/namespace.ts';
import * as validators from '../../out/validators/index.ts';
import { lazyValidator } from '../http/bootstrap.ts';
import type { Obj } from '../api/object.ts';
import { ApiError } from '../errors/api-error.ts';
import { Registry } from '../registry/registry.ts';
import type { Store } from '../registry/store.ts';
import { makePKI } from '../admission/webhook-fixture.ts';
import { MemoryStorage } from '../storage/memory.ts';
import { CRDController, type CustomResourceServingTarget } from './controller.ts';
import { customResourceDefinitionStrategy } from './strategy.ts';
import type { CRDNames, CustomResourceDefinition } from './types.ts';

const GROUP = 'names.example.cluster.io';

function crd(names: CRDNames): Obj {
  return {
    apiVersion: 'apiextensions.cluster.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${names.plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names,
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-cluster-preserve-unknown-fields': true } } }],
    },
  };
}

const WIDGETS: CRDNames = { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] };

/** Records what the controller serves. */
class Serving implements CustomResourceServingTarget {
  readonly served = new Set<string>();
  install(c: CustomResourceDefinition): void {
    this.served.add(c.metadata?.name ?? '');
  }
  uninstall(name: string): void {
    this.served.delete(name);
  }
  storageStore(): Store {
    throw new Error('not used: no CRD is deleted with instances here');
  }
}

async function until<T>(f: () => Promise<T | undefined>, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('CRDController naming', () => {
  let storage: MemoryStorage;
  let store: Store;
  let serving: Serving;
  let controller: CRDController;
  const logged: string[] = [];

  beforeEach(async () => {
    storage = new MemoryStorage({ autoCompaction: false });
    const registry = new Registry(storage, [
      { descriptor: namespaceResource, validator: lazyValidator(() => validators.Namespace.createValidator()) },
      { descriptor: customResourceDefinitionResource, validator: lazyValidator(() => validators.CustomResourceDefinition.createValidator()) },
    ], { strategies: { CustomResourceDefinition: customResourceDefinitionStrategy } });
    await registry.init();
    store = registry.storeFor('apiextensions.cluster.io', 'customresourcedefinitions')!;
    serving = new Serving();
    logged.length = 0;
    controller = new CRDController({ registry, serving, builtins: [], log: (m) => logged.push(m) });
    await controller.start(2000);
  });
  afterEach(async () => {
    controller.stop();
    await storage.close();
  });

  /** The CRD once its NamesAccepted condition is written. */
  async function named(name: string): Promise<CustomResourceDefinition> {
    return until(async () => {
      const c = (await store.get(undefined, name)) as unknown as CustomResourceDefinition;
      return c.status?.conditions?.some((x) => x.type === 'NamesAccepted') ? c : undefined;
    });
  }

  async function established(name: string): Promise<CustomResourceDefinition> {
    return until(async () => {
      const c = (await store.get(undefined, name)) as unknown as CustomResourceDefinition;
      return c.status?.conditions?.some((x) => x.type === 'Established' && x.status === 'True') ? c : undefined;
    });
  }

  const cases: { name: string; names: CRDNames; reason: string; message: string; accepted: CRDNames }[] = [
    {
      name: 'kind taken: kind stays "" and the rest is accepted',
      names: { plural: 'gizmos', singular: 'gizmo', kind: 'Widget', listKind: 'GizmoList' },
      reason: 'KindConflict',
      message: '"Widget" is already in use',
      accepted: { plural: 'gizmos', singular: 'gizmo', kind: '', listKind: 'GizmoList' },
    },
    {
      name: 'kind and listKind taken: the last conflict (listKind) is reported',
      names: { plural: 'gizmos', singular: 'gizmo', kind: 'Widget', listKind: 'WidgetList' },
      reason: 'ListKindConflict',
      message: '"WidgetList" is already in use',
      accepted: { plural: 'gizmos', singular: 'gizmo', kind: '' },
    },
    {
      name: 'plural taken by a short name: plural stays ""',
      names: { plural: 'wd', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
      reason: 'PluralConflict',
      message: '"wd" is already in use',
      accepted: { plural: '', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
    },
    {
      name: 'short name taken: no short names accepted',
      names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList', shortNames: ['gz', 'widget'] },
      reason: 'ShortNamesConflict',
      message: '"widget" is already in use',
      accepted: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
    },
  ];
  for (const c of cases) {
    it(`${c.name}; the status write succeeds and nothing is served`, async () => {
      await store.create(undefined, crd(WIDGETS));
      await established(`widgets.${GROUP}`);
      const name = `${c.names.plural}.${GROUP}`;
      await store.create(undefined, crd(c.names));
      const got = await named(name);
      const conds = Object.fromEntries((got.status?.conditions ?? []).map((x) => [x.type, x]));
      expect(conds.NamesAccepted).toMatchObject({ status: 'False', reason: c.reason, message: c.message });
      expect(conds.Established).toMatchObject({ status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' });
      expect(got.status?.acceptedNames).toEqual(c.accepted);
      expect(serving.served.has(name)).toBe(false);
      expect(serving.served.has(`widgets.${GROUP}`)).toBe(true);
      expect(logged).toEqual([]);
    });
  }

  it('a conflicting CRD is accepted, established and served once the other one goes', async () => {
    await store.create(undefined, crd(WIDGETS));
    await established(`widgets.${GROUP}`);
    const gizmos = `gizmos.${GROUP}`;
    await store.create(undefined, crd({ plural: 'gizmos', singular: 'gizmo', kind: 'Widget', listKind: 'GizmoList' }));
    await named(gizmos);
    // Deleting the CRD leaves it Terminating behind the cleanup finalizer; drop that by hand, as
    // the finalizer controller would after deleting its (here: no) custom resources.
    await store.delete(undefined, `widgets.${GROUP}`, {});
    // a patch, which the store re-applies when the controller's own status write got in between
    await store.patch(undefined, `widgets.${GROUP}`, (cur) => ({ ...cur, metadata: { ...(cur.metadata as Obj), finalizers: [] } })).catch((e: unknown) => {
      if (!(e instanceof ApiError && e.code === 404)) throw e;
    });
    const got = await established(gizmos);
    expect(got.status?.acceptedNames).toEqual({ plural: 'gizmos', singular: 'gizmo', kind: 'Widget', listKind: 'GizmoList' });
    expect(got.status?.conditions?.find((x) => x.type === 'NamesAccepted')).toMatchObject({ status: 'True', reason: 'NoConflicts' });
    await until(async () => (serving.served.has(gizmos) ? true : undefined));
  });

  describe('a conversion webhook caBundle that is not PEM (upstream establishing controller)', () => {
    const pki = makePKI();
    const withWebhook = (caBundle: string): Obj => {
      const c = crd({ plural: 'gadgets', kind: 'Gadget' });
      (c.spec as Obj).conversion = { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://127.0.0.1:9443/convert', caBundle } } };
      return c;
    };
    const name = `gadgets.${GROUP}`;
    const conditions = (c: CustomResourceDefinition): Record<string, unknown> => Object.fromEntries((c.status?.conditions ?? []).map((x) => [x.type, x]));

    it.each([
      { name: 'a line break', caBundle: 'Cg==' },
      { name: 'a private key', caBundle: Buffer.from(pki.key).toString('base64') },
    ])('$name: names accepted, Established False InvalidCABundle, not served, no write loop', async ({ caBundle }) => {
      await store.create(undefined, withWebhook(caBundle));
      const got = await until(async () => {
        const c = (await store.get(undefined, name)) as unknown as CustomResourceDefinition;
        return c.status?.conditions?.some((x) => x.type === 'Established' && x.reason === 'InvalidCABundle') ? c : undefined;
      });
      expect(conditions(got)).toMatchObject({
        NamesAccepted: { status: 'True', reason: 'NoConflicts' },
        Established: { status: 'False', reason: 'InvalidCABundle', message: 'The conversion webhook CABundle is invalid' },
      });
      // The naming controller must not put Installing back (the two controllers would take turns).
      await new Promise((r) => setTimeout(r, 300));
      const later = (await store.get(undefined, name)) as unknown as CustomResourceDefinition;
      expect(later.metadata?.resourceVersion).toBe(got.metadata?.resourceVersion);
      expect(serving.served.has(name)).toBe(false);
      expect(logged).toEqual([]);
    });

    it('deleting it: Terminating False NeverEstablished, no instance deletion, then gone', async () => {
      await store.create(undefined, withWebhook('Cg=='));
      await until(async () => {
        const c = (await store.get(undefined, name)) as unknown as CustomResourceDefinition;
        return c.status?.conditions?.some((x) => x.reason === 'InvalidCABundle') ? c : undefined;
      });
      const reasons: string[] = [];
      let deleted = false;
      const stream = await store.watch(undefined, {}, {
        send: (type, object) => {
          if (type === 'DELETED') deleted = true;
          const t = (object as unknown as CustomResourceDefinition).status?.conditions?.find((x) => x.type === 'Terminating');
          if (t && reasons[reasons.length - 1] !== t.reason) reasons.push(t.reason ?? '');
        },
        error: () => undefined,
        end: () => undefined,
      });
      try {
        await store.delete(undefined, name, {});
        await until(async () => (deleted ? true : undefined));
      } finally {
        stream.stop();
      }
      expect(reasons).toEqual(['InstanceDeletionPending', 'InstanceDeletionInProgress', 'NeverEstablished']);
      // Serving.storageStore throws: an attempt to delete instances would have been logged.
      expect(logged).toEqual([]);
    });

    it('a fixed caBundle establishes and serves the CRD', async () => {
      await store.create(undefined, withWebhook('Cg=='));
      const bad = await until(async () => {
        const c = (await store.get(undefined, name)) as unknown as Obj;
        return (c as unknown as CustomResourceDefinition).status?.conditions?.some((x) => x.reason === 'InvalidCABundle') ? c : undefined;
      });
      const fixed = withWebhook(pki.caBundle);
      await store.update(undefined, name, { ...fixed, metadata: bad.metadata, status: bad.status });
      const got = await established(name);
      expect(conditions(got).Established).toMatchObject({ status: 'True', reason: 'InitialNamesAccepted' });
      await until(async () => (serving.served.has(name) ? true : undefined));
    });
  });
});
