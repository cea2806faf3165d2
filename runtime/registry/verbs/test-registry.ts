// Test support for the verb tests: a registry over real memory storage with a few built-in
// resources from out/.

import { configMapResource } from '../../../out/routes/configmap.ts';
import { cSIDriverResource } from '../../../out/routes/csidriver.ts';
import { namespaceResource } from '../../../out/routes/namespace.ts';
import { validatingWebhookConfigurationResource } from '../../../out/routes/validatingwebhookconfiguration.ts';
import * as validators from '../../../out/validators/index.ts';
import { readFileSync } from 'node:fs';
import { lazyValidator } from '../../http/bootstrap.ts';
import type { Schema } from '../../schema/types.ts';
import { MemoryStorage } from '../../storage/memory.ts';
import { Registry } from '../registry.ts';
import type { Store } from '../store.ts';

export interface TestRegistry {
  storage: MemoryStorage;
  registry: Registry;
  configMaps: Store;
  namespaces: Store;
  close(): Promise<void>;
}

/** The named shapes of out/validators/definitions.json (managedFields, strategic merge). */
function definitionShapes(): Record<string, Schema> {
  const file = new URL('../../../out/validators/definitions.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { shapes: Record<string, Schema> }).shapes;
}

export async function testRegistry(): Promise<TestRegistry> {
  const storage = new MemoryStorage({ autoCompaction: false });
  const registry = new Registry(
    storage,
    [
      { descriptor: configMapResource, validator: lazyValidator(() => validators.ConfigMap.createValidator()) },
      { descriptor: namespaceResource, validator: lazyValidator(() => validators.Namespace.createValidator()) },
      { descriptor: cSIDriverResource, validator: lazyValidator(() => validators.CSIDriver.createValidator()) },
      { descriptor: validatingWebhookConfigurationResource, validator: lazyValidator(() => validators.ValidatingWebhookConfiguration.createValidator()) },
    ],
    { featureGates: { WatchList: true }, futureRevisionWaitMs: 200, shapes: definitionShapes() },
  );
  await registry.init();
  return {
    storage,
    registry,
    configMaps: registry.storeFor('', 'configmaps') as Store,
    namespaces: registry.storeFor('', 'namespaces') as Store,
    async close() {
      registry.stop();
      await storage.close();
    },
  };
}
