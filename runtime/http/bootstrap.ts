// Assembles a server from the generated artifacts in out/: route tables, validators, OpenAPI
// documents, definitions (for strategic merge patch), feature-gate defaults.

import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Registry } from '../registry/registry.ts';
import type { CompiledValidator, FieldError, Schema } from '../schema/types.ts';
import type { Storage } from '../storage/interface.ts';
import { DefaultServiceResolver } from '../admission/index.ts';
import { allowAllAuthorizer } from '../authorization/authorizer.ts';
import { WebhookAdmission } from '../admission/webhook-plugin.ts';
import type { ValidatingWebhookConfiguration } from '../admission/types.ts';
import { Informer } from '../controller/informer.ts';
import { ServedEquivalentResources } from '../crd/equivalent-resources.ts';
import { ServedCustomResources } from '../crd/served-resources.ts';
import { WebhookClient } from '../admission/client.ts';
import { CRDController } from '../crd/controller.ts';
import { customResourceDefinitionStrategy } from '../crd/strategy.ts';
import { StorageVersionMigrationController } from '../migration/controller.ts';
import { DEFAULT_EVENT_TTL_MS, EventExpiry } from '../events/expiry.ts';
import { GarbageCollector } from '../garbage-collector/controller.ts';
import { EventRecorder } from '../events/recorder.ts';
import type { LeaderElector } from '../controller/leader-election.ts';
import { leaderElectorFor } from '../controller/leader-election-for-storage.ts';
import { NamespaceController } from '../registry/namespace-controller.ts';
import { CustomResourceServing } from './custom-resources.ts';
import type { TokenAuthenticator } from './auth.ts';
import { OpenApiDocuments } from './openapi.ts';
import type { RouteHandlers, RouteTable } from './route-types.ts';
import { ApiServer } from './server.ts';
import { StaticSite } from './docs-static.ts';

interface ValidatorModule {
  createValidator(featureGates?: Record<string, boolean>): CompiledValidator;
}

/**
 * Compiles on first use and keeps the result. A schema that fails to compile makes every call
 * throw, which the request path answers as 500 InternalError for that resource only.
 */
export function lazyValidator(make: () => CompiledValidator): CompiledValidator {
  let v: CompiledValidator | undefined;
  const get = (): CompiledValidator => (v ??= make());
  return {
    validate: (o: unknown): FieldError[] => get().validate(o),
    validateUpdate: (o: unknown, old: unknown): FieldError[] => get().validateUpdate(o, old),
    applyDefaults: (o: unknown): void => get().applyDefaults(o),
    prune: (o: unknown): string[] => get().prune(o),
  };
}

export interface GeneratedArtifacts {
  routes: <H>(handlers: RouteHandlers<H>) => RouteTable<H>[];
  validators: Record<string, ValidatorModule>;
  featureGateDefaults: Record<string, boolean>;
  openapi: OpenApiDocuments;
  shapes: Record<string, Schema>;
}

export async function loadGenerated(outDir: string): Promise<GeneratedArtifacts> {
  // `.js` when this server runs compiled (the @clusterspec/server package), `.ts` from the sources.
  const ext = import.meta.url.endsWith('.js') ? '.js' : '.ts';
  const imp = (p: string): Promise<unknown> => import(pathToFileURL(join(outDir, `${p}${ext}`)).href);
  const routesMod = (await imp('routes/index')) as { allRoutes: GeneratedArtifacts['routes'] };
  const validators = (await imp('validators/index')) as Record<string, ValidatorModule>;
  const gates = (await imp('validators/feature-gates')) as { featureGateDefaults: Record<string, boolean> };
  const defs = JSON.parse(readFileSync(join(outDir, 'validators', 'definitions.json'), 'utf8')) as { shapes?: Record<string, Schema> };
  return {
    routes: routesMod.allRoutes,
    validators,
    featureGateDefaults: gates.featureGateDefaults,
    openapi: OpenApiDocuments.load(join(outDir, 'openapi')),
    shapes: defs.shapes ?? {},
  };
}

export interface BuildOptions {
  storage: Storage;
  authenticator: TokenAuthenticator;
  featureGates?: Record<string, boolean>;
  /** Compile every validator at start and report the ones that fail (they still fail per request). */
  onValidatorError?: (kind: string, error: unknown) => void;
  /** `ns/name[:port]` → `https://host:port`: where webhook `service` references are reached (--webhook-service-resolver). */
  webhookServiceOverrides?: Map<string, string>;
  /** Validating admission webhooks (default on). */
  admission?: boolean;
  /** Serving the custom resources of established CRDs, with the CRD controller (default on). */
  customResources?: boolean;
  /** The StorageVersionMigration controller (default on). */
  storageVersionMigration?: boolean;
  /** The garbage collector (ownerReferences, foreground and orphan deletion; default on). */
  garbageCollection?: boolean;
  /** More /healthz and /readyz checks by name (the etcd backend's `etcd`). */
  healthChecks?: Record<string, () => Promise<boolean>>;
  /** Runs the controllers whose work must happen once among replicas (default: leaderElectorFor(storage)). */
  leaderElector?: LeaderElector;
  /** The folder of the API reference site (out/docs), served at /docs/; undefined: not served. */
  docsDir?: string;
  /** The folder of the JSON Schemas the reference links to (out/jsonschema), served at /jsonschema/; undefined: not served. */
  jsonSchemaDir?: string;
  /** How long an Event lives after its last write, ms (--event-ttl; default 1 h; 0: events never expire). */
  eventTtlMs?: number;
}

/** The names the controllers are elected under (keys of runtime/controller/leader-election-etcd.ts). */
export const ELECTED = { namespaces: 'namespace-controller', migration: 'storage-version-migrator', garbageCollector: 'garbage-collector', eventTtl: 'event-ttl' } as const;

export interface BuiltServer {
  api: ApiServer;
  registry: Registry;
  /** The validating admission webhooks (undefined when turned off); stop() it on shutdown. */
  admission: WebhookAdmission | undefined;
  /** The CRD controller (undefined when custom resources are turned off); stop() it on shutdown. */
  crdController: CRDController | undefined;
  /** The StorageVersionMigration controller while this replica leads it (undefined when turned off or not leading). */
  readonly migrationController: StorageVersionMigrationController | undefined;
  /** The garbage collector while this replica leads it (undefined when turned off or not leading). */
  readonly garbageCollector: GarbageCollector | undefined;
  /** Runs the controllers that must run once among replicas (ELECTED) where this replica leads them. */
  leaderElector: LeaderElector;
  /** What /api reports as serverAddress (host:port), once the port is known. */
  setServerAddress(address: string): void;
  /** Stops the admission configuration watch and the controllers, and gives up every lead (before the storage is closed). */
  stop(): Promise<void>;
}

export async function buildApiServer(gen: GeneratedArtifacts, opts: BuildOptions): Promise<BuiltServer> {
  const featureGates = { ...gen.featureGateDefaults, ...(opts.featureGates ?? {}) };
  const descriptors = gen.routes<null>({
    get: null,
    list: null,
    watch: null,
    create: null,
    update: null,
    patch: null,
    delete: null,
    deleteCollection: null,
    getStatus: null,
    updateStatus: null,
    patchStatus: null,
    updateFinalize: null,
  }).map((t) => t.resource);
  const resources = descriptors.map((descriptor) => {
    const mod = gen.validators[descriptor.shape ?? descriptor.kind];
    if (!mod) throw new Error(`no generated validator for ${descriptor.kind}`);
    const validator = lazyValidator(() => mod.createValidator(featureGates));
    if (opts.onValidatorError) {
      try {
        validator.prune({});
      } catch (e) {
        opts.onValidatorError(descriptor.kind, e);
      }
    }
    return { descriptor, validator };
  });
  // The strategies that live above the registry (upstream's apiextensions REST storage) are handed in here.
  const strategies = { CustomResourceDefinition: customResourceDefinitionStrategy };
  const registry = new Registry(opts.storage, resources, { featureGates, shapes: gen.shapes, strategies });
  await registry.init();
  // One authorizer for webhook match conditions and the self reviews: today every authenticated user may do everything.
  const authorizer = allowAllAuthorizer;
  let admission: WebhookAdmission | undefined;
  let webhookConfigurations: Informer | undefined;
  const vwcStore = registry.storeFor('admissionregistration.cluster.io', 'validatingwebhookconfigurations');
  if (opts.admission !== false && vwcStore) {
    const webhooks = new WebhookAdmission({
      authorizer,
      namespaces: registry.namespaces,
      clientOptions: { serviceResolver: new DefaultServiceResolver(opts.webhookServiceOverrides ?? new Map()) },
    });
    const log = (m: string): boolean => process.stderr.write(`admission: webhook configurations: ${m}\n`);
    const load = (): void => {
      try {
        webhooks.setConfigurations(informer.list() as unknown as ValidatingWebhookConfiguration[]);
      } catch (e) {
        log(`cannot load: ${e instanceof Error ? e.message : String(e)}`);
      }
    };
    // the configurations in force follow storage: a configuration write is in effect before its own response is sent
    const informer = new Informer(vwcStore, { onChange: load, log });
    await informer.start();
    load();
    registry.admission.add(webhooks);
    admission = webhooks;
    webhookConfigurations = informer;
  }
  let customResources: CustomResourceServing | undefined;
  let servedCustomResources: ServedCustomResources | undefined;
  let crdController: CRDController | undefined;
  if (opts.customResources !== false) {
    let router: CustomResourceServing | undefined;
    servedCustomResources = new ServedCustomResources({
      registry,
      shapes: gen.shapes,
      // conversion webhooks share the admission engine's transport (one pool, one service resolver)
      webhookClient: admission?.engine.client ?? new WebhookClient(),
      onChange: () => router?.rebuild(),
    });
    customResources = router = new CustomResourceServing({ served: servedCustomResources, openapi: gen.openapi });
    crdController = new CRDController({ registry, serving: servedCustomResources, builtins: descriptors });
    await crdController.start();
  }
  // Webhooks registered for another version of a custom resource get the objects at that version.
  admission?.engine.setEquivalentResourceMapper(new ServedEquivalentResources(registry, servedCustomResources));
  // Work that must happen once among replicas runs where this replica leads it (always, on sqlite and memory).
  const leaderElector = opts.leaderElector ?? (await leaderElectorFor(opts.storage));
  await leaderElector.run(ELECTED.namespaces, () => new NamespaceController({ registry }));
  if (opts.storageVersionMigration !== false) {
    // After the CRD controller: custom resources stored at start are served, so unfinished migrations of them resume.
    await leaderElector.run(ELECTED.migration, () => new StorageVersionMigrationController({ registry }));
  }
  if (opts.garbageCollection !== false) {
    // After the CRD controller: custom resources are served, so their owners and dependents are in the graph from the start.
    const events = new EventRecorder(registry, 'garbage-collector-controller');
    await leaderElector.run(ELECTED.garbageCollector, () => new GarbageCollector({ registry, recordEvent: (e) => void events.record(e) }));
  }
  const eventTtlMs = opts.eventTtlMs ?? DEFAULT_EVENT_TTL_MS;
  if (eventTtlMs > 0) await leaderElector.run(ELECTED.eventTtl, () => new EventExpiry({ registry, ttlMs: eventTtlMs }));
  let address = '127.0.0.1';
  const api = new ApiServer({
    registry,
    authorizer,
    routes: gen.routes,
    authenticator: opts.authenticator,
    openapi: gen.openapi,
    shapes: gen.shapes,
    healthChecks: {
      storage: async () => (await opts.storage.currentRevision()) >= 0,
      ...opts.healthChecks,
    },
    serverAddress: () => address,
    customResources,
    staticSites: [
      ...(opts.docsDir === undefined ? [] : [new StaticSite('/docs', opts.docsDir)]),
      ...(opts.jsonSchemaDir === undefined ? [] : [new StaticSite('/jsonschema', opts.jsonSchemaDir)]),
    ],
  });
  return {
    api,
    registry,
    admission,
    crdController,
    get migrationController() {
      return leaderElector.controller(ELECTED.migration) as StorageVersionMigrationController | undefined;
    },
    get garbageCollector() {
      return leaderElector.controller(ELECTED.garbageCollector) as GarbageCollector | undefined;
    },
    leaderElector,
    setServerAddress(a: string) {
      address = a;
    },
    async stop() {
      webhookConfigurations?.stop();
      admission?.stop();
      registry.stop();
      crdController?.stop();
      await leaderElector.stop();
    },
  };
}

export interface ListenOptions {
  port: number;
  address: string;
  tls?: { cert: Buffer; key: Buffer };
}

export async function listen(api: ApiServer, o: ListenOptions): Promise<{ server: HttpServer; port: number; url: string }> {
  const server = (o.tls ? createHttpsServer({ cert: o.tls.cert, key: o.tls.key }, api.listener) : createHttpServer(api.listener)) as HttpServer;
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.address, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = o.address.includes(':') ? `[${o.address}]` : o.address;
  return { server, port, url: `${o.tls ? 'https' : 'http'}://${host}:${port}` };
}
