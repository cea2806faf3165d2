// Validating admission webhooks on the request path (document 2, 2.5, 2.7, 5 to 8).
//
// - WebhookAdmission owns the engine (runtime/admission ValidatingAdmission) and keeps its snapshot
//   of ValidatingWebhookConfigurations current from storage: loaded at start (one list), then a
//   storage watch on the configurations' prefix from that list's revision. The backends publish a
//   committed change to live watchers synchronously, before the writer's promise resolves, so a
//   configuration write is in effect before its own response is sent (and a write by anything else
//   sharing the storage is seen too). The engine swaps whole snapshots, so no request sees a
//   half-updated set.
// - admitter() builds, for one HTTP request, the registry's `Admit` callback: the store calls it after
//   defaulting and validation, just before storage; it turns the store's AdmissionCheck into the
//   engine's attributes (user of the request, CreateOptions/UpdateOptions/DeleteOptions, namespace
//   labels from the stored Namespace), passes an AbortSignal that fires when the client goes away,
//   collects webhook warnings for `Warning` headers, and throws the engine's rejection as ApiError.
// - Webhook configuration problems (a webhook failing open, a configuration that cannot be read) are
//   logged, never recorded as Events: upstream's webhook plugin records none (runtime/events/README.md).

import type { ServerResponse } from 'node:http';
import {
  ValidatingAdmission,
  type AdmissionAttributes,
  type ValidatingAdmissionOptions,
  type ValidatingWebhookConfiguration,
  type WebhookEvent,
} from '../admission/index.ts';
import { ApiError, type StatusReason } from '../errors/api-error.ts';
import { isObj, metaOf, type Obj } from '../registry/object.ts';
import type { Registry } from '../registry/registry.ts';
import type { AdmissionCheck, Admit, Store } from '../registry/store.ts';
import { isStorageError, keyAfter, type WatchHandle } from '../storage/interface.ts';
import type { UserInfo } from './auth.ts';
import { setWarnings } from './respond.ts';

const VWC_GROUP = 'admissionregistration.cluster.io';
const VWC_PLURAL = 'validatingwebhookconfigurations';
/** The group of CreateOptions, UpdateOptions and DeleteOptions (upstream: meta.k8s.io). */
const META_API_VERSION = 'meta.cluster.io/v1';

export interface WebhookAdmissionOptions extends ValidatingAdmissionOptions {
  /** Where watch failures are reported (default: stderr). */
  log?: (line: string) => void;
}

export class WebhookAdmission {
  readonly engine: ValidatingAdmission;
  readonly #log: (line: string) => void;
  #registry: Registry | undefined;
  #store: Store | undefined;
  #configs = new Map<string, ValidatingWebhookConfiguration>();
  #watch: WatchHandle | undefined;
  #stopped = false;
  #resyncTimer: NodeJS.Timeout | undefined;

  constructor(opts: WebhookAdmissionOptions = {}) {
    this.#log = opts.log ?? ((l) => process.stderr.write(`${l}\n`));
    const userEvent = opts.onWebhookEvent;
    this.engine = new ValidatingAdmission({
      ...opts,
      onWebhookEvent: (e: WebhookEvent) => {
        if (e.outcome === 'failed-open') this.#log(`admission: ${e.configuration}/${e.webhook}: ignored (failurePolicy Ignore): ${e.message ?? ''}`);
        userEvent?.(e);
      },
    });
  }

  /** Loads the configurations from storage and follows their changes until stop(). */
  async start(registry: Registry): Promise<void> {
    this.#registry = registry;
    this.#store = registry.storeFor(VWC_GROUP, VWC_PLURAL);
    if (!this.#store) return;
    await this.#sync();
  }

  /** Stops following configurations and closes the webhook connections. */
  stop(): void {
    this.#stopped = true;
    if (this.#resyncTimer) clearTimeout(this.#resyncTimer);
    this.#watch?.cancel();
    this.#watch = undefined;
    this.engine.close();
  }

  /** The configurations in effect (names), for tests and logs. */
  get configurationNames(): string[] {
    return [...this.#configs.values()].map((c) => c.metadata.name).sort();
  }

  async #sync(): Promise<void> {
    const store = this.#store as Store;
    const storage = store.storage;
    const prefix = store.prefix(undefined);
    // One consistent snapshot of every configuration, then the changes after it.
    const configs = new Map<string, ValidatingWebhookConfiguration>();
    let revision: number | undefined;
    let startKey: string | undefined;
    for (;;) {
      const page = await storage.list(prefix, { revision, startKey, limit: 500 });
      revision = page.revision;
      for (const kv of page.items) configs.set(kv.key, store.decode(kv.value, kv.modRevision) as unknown as ValidatingWebhookConfiguration);
      if (!page.more || page.items.length === 0) break;
      startKey = keyAfter(page.items[page.items.length - 1].key);
    }
    if (this.#stopped) return;
    this.#configs = configs;
    this.engine.setConfigurations([...configs.values()]);
    this.#watch?.cancel();
    const handle = await storage.watch(
      prefix,
      revision,
      (ev) => {
        if (this.#stopped || this.#watch !== handle) return;
        try {
          if (ev.type === 'delete' || ev.value === undefined) this.#configs.delete(ev.key);
          else this.#configs.set(ev.key, store.decode(ev.value, ev.modRevision) as unknown as ValidatingWebhookConfiguration);
          this.engine.setConfigurations([...this.#configs.values()]);
        } catch (e) {
          this.#log(`admission: cannot load webhook configuration ${ev.key}: ${e instanceof Error ? e.message : String(e)}`);
        }
      },
      (err) => {
        if (this.#stopped || this.#watch !== handle) return;
        if (isStorageError(err, 'Closed') && /storage is closed/.test(err.message)) return;
        this.#log(`admission: webhook configuration watch ended (${err.message}); reloading`);
        this.#scheduleResync();
      },
    );
    this.#watch = handle;
    if (this.#stopped) handle.cancel();
    // The watcher catches up in the next tick(s), then receives changes synchronously with commits.
    await new Promise((r) => setImmediate(r));
  }

  #scheduleResync(): void {
    if (this.#stopped || this.#resyncTimer) return;
    this.#resyncTimer = setTimeout(() => {
      this.#resyncTimer = undefined;
      this.#sync().catch((e: unknown) => {
        if (isStorageError(e, 'Closed')) return;
        this.#log(`admission: reloading webhook configurations failed: ${e instanceof Error ? e.message : String(e)}`);
        this.#scheduleResync();
      });
    }, 200);
    this.#resyncTimer.unref();
  }

  /** Labels of a stored Namespace (undefined when it does not exist). */
  async namespaceLabels(name: string): Promise<Record<string, string> | undefined> {
    const ns = this.#registry?.storeFor('', 'namespaces');
    if (!ns) return undefined;
    try {
      const obj = await ns.get(undefined, name);
      const labels = metaOf(obj).labels;
      return isObj(labels) ? (labels as Record<string, string>) : {};
    } catch (e) {
      if (e instanceof ApiError && e.code === 404) return undefined;
      throw e;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Per request

export type AdmissionOptionsKind = 'CreateOptions' | 'UpdateOptions' | 'DeleteOptions';

/** The options object a webhook sees (`request.options`), per operation of one request. */
export type OperationOptions = Partial<Record<AdmissionCheck['operation'], Obj>>;

/** CreateOptions / UpdateOptions as upstream serializes them (empty fields omitted). */
export function writeOptionsObject(
  kind: 'CreateOptions' | 'UpdateOptions',
  o: { dryRun?: boolean; fieldManager?: string; fieldValidation?: string },
): Obj {
  const out: Obj = { kind, apiVersion: META_API_VERSION };
  if (o.dryRun) out.dryRun = ['All'];
  if (o.fieldManager) out.fieldManager = o.fieldManager;
  if (o.fieldValidation) out.fieldValidation = o.fieldValidation;
  return out;
}

/** DeleteOptions as upstream serializes them. */
export function deleteOptionsObject(o: {
  dryRun?: boolean;
  gracePeriodSeconds?: number;
  propagationPolicy?: string;
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
}): Obj {
  const out: Obj = { kind: 'DeleteOptions', apiVersion: META_API_VERSION };
  if (o.gracePeriodSeconds !== undefined) out.gracePeriodSeconds = o.gracePeriodSeconds;
  if (o.preconditions) out.preconditions = { ...o.preconditions };
  if (o.orphanDependents !== undefined) out.orphanDependents = o.orphanDependents;
  if (o.propagationPolicy !== undefined) out.propagationPolicy = o.propagationPolicy;
  if (o.dryRun) out.dryRun = ['All'];
  return out;
}

interface RequestState {
  warnings: string[];
  controller?: AbortController;
}

const states = new WeakMap<ServerResponse, RequestState>();

function stateOf(res: ServerResponse): RequestState {
  let s = states.get(res);
  if (!s) {
    s = { warnings: [] };
    states.set(res, s);
  }
  return s;
}

/** Warnings the webhooks returned for this request so far (for `Warning` headers). */
export function admissionWarnings(res: ServerResponse): readonly string[] {
  return states.get(res)?.warnings ?? [];
}

/** Aborted when the response is closed: the client went away, or the answer is out. */
function signalOf(res: ServerResponse): AbortSignal {
  const s = stateOf(res);
  if (!s.controller) {
    const c = new AbortController();
    s.controller = c;
    if (res.closed || res.destroyed) c.abort();
    else res.once('close', () => c.abort());
  }
  return s.controller.signal;
}

function typed(store: Store, o: Obj | undefined): Obj | null {
  if (o === undefined) return null;
  const { kind: _k, apiVersion: _a, ...rest } = o;
  return { kind: store.descriptor.kind, apiVersion: store.apiVersion, ...rest };
}

export interface AdmitterRequest {
  res: ServerResponse;
  user: UserInfo;
  store: Store;
  /** True when the request's path names the object (`/namespaces/{name}`): Namespace requests then carry it as their namespace, as upstream's RequestInfo does. */
  namedPath: boolean;
}

/** The registry's Admit callback for one request; undefined when admission is off. */
export function admitter(admission: WebhookAdmission | undefined, r: AdmitterRequest, options: OperationOptions): Admit | undefined {
  if (!admission) return undefined;
  const d = r.store.descriptor;
  const isNamespace = d.group === '' && d.plural === 'namespaces';
  return async (check: AdmissionCheck): Promise<void> => {
    if (admission.engine.webhooks.length === 0) return;
    const namespace = d.namespaced ? (check.namespace ?? '') : isNamespace && (r.namedPath || check.operation !== 'CREATE') ? check.name : '';
    const attrs: AdmissionAttributes = {
      operation: check.operation,
      kind: { group: d.group, version: d.version, kind: d.kind },
      resource: { group: d.group, version: d.version, resource: d.plural },
      subResource: check.subresource ?? '',
      name: check.name,
      namespace,
      object: typed(r.store, check.object),
      oldObject: typed(r.store, check.oldObject),
      dryRun: check.dryRun,
      options: options[check.operation] ?? null,
      userInfo: { username: r.user.name, uid: r.user.uid, groups: [...r.user.groups] },
      namespaceLabels: (ns: string) => admission.namespaceLabels(ns),
    };
    const result = await admission.engine.validate(attrs, { signal: signalOf(r.res) });
    const state = stateOf(r.res);
    state.warnings.push(...result.warnings);
    if (!result.allowed) {
      const j = result.rejection;
      // Webhook warnings go out with the error too.
      if (state.warnings.length && !r.res.headersSent) setWarnings(r.res, state.warnings);
      throw new ApiError(j.code, j.reason as StatusReason, j.message, j.details);
    }
  };
}
