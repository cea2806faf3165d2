// ValidatingAdmission: the engine the server calls after validation and before storage.
//
// - Configurations are held as one immutable snapshot, replaced atomically by
//   setConfigurations(list): a validate() call reads the snapshot once at its start and uses it
//   to the end, so no request ever sees a half-updated set. Selectors and matchConditions are
//   compiled when the snapshot is built; an unchanged configuration version (same name, uid and
//   resourceVersion) reuses the previous compilation.
// - validate(attrs): selects the matching webhooks (rules, matchPolicy, namespaceSelector,
//   objectSelector, matchConditions; configurations in name order, webhooks in list order, as
//   upstream merges them), applies sideEffects for dryRun, calls all selected webhooks in
//   parallel, waits for all, and aggregates: the first rejection in that order wins, warnings
//   from all webhooks are returned.

import { WebhookClient, goQuote, type CallOutcome, type WebhookClientOptions } from './client.ts';
import {
  compileLabelSelector,
  isExemptAdmissionConfigurationResource,
  matchNamespaceSelector,
  matchObjectSelector,
  matchRules,
  namespaceLabelSource,
  type CompiledSelector,
  type EquivalentResourceMapper,
  type Invocation,
  type Labels,
} from './matching.ts';
import { compileMatchConditions, evaluateMatchConditions, type CompiledMatchConditions } from './match-conditions.ts';
import {
  allowAllAuthorizer,
  type AdmissionAttributes,
  type AdmissionRejection,
  type AdmissionResult,
  type Authorizer,
  type GroupVersionResource,
  type ValidatingWebhook,
  type ValidatingWebhookConfiguration,
} from './types.ts';

/** One webhook of one configuration, prepared for matching. */
export interface PreparedWebhook {
  readonly configuration: string;
  readonly index: number;
  readonly webhook: Readonly<ValidatingWebhook>;
  readonly namespaceSelector: CompiledSelector | Error;
  readonly objectSelector: CompiledSelector | Error;
  readonly matchConditions: CompiledMatchConditions;
  /** Reuse key (undefined when the configuration has no resourceVersion). */
  readonly versionKey?: string;
}

interface Snapshot {
  readonly generation: number;
  readonly webhooks: readonly PreparedWebhook[];
}

/** What happened to one webhook for one request (for logs, metrics and audit annotations). */
export interface WebhookEvent {
  configuration: string;
  webhook: string;
  outcome: 'allowed' | 'denied' | 'failed-closed' | 'failed-open' | 'dry-run-unsupported' | 'match-condition-error';
  durationMs: number;
  message?: string;
}

export interface ValidatingAdmissionOptions {
  /** The HTTPS client (shared connection pools); default: a new one with clientOptions. */
  client?: WebhookClient;
  clientOptions?: WebhookClientOptions;
  /** The CEL `authorizer` of matchConditions; default: allow every authenticated user. */
  authorizer?: Authorizer;
  equivalentResourceMapper?: EquivalentResourceMapper;
  onWebhookEvent?: (e: WebhookEvent) => void;
}

export interface ValidateOptions {
  signal?: AbortSignal;
}

const EMPTY: Snapshot = Object.freeze({ generation: 0, webhooks: Object.freeze([]) as readonly PreparedWebhook[] });

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v as object)) deepFreeze(x);
  }
  return v;
}

function compileSelector(sel: ValidatingWebhook['namespaceSelector']): CompiledSelector | Error {
  try {
    return compileLabelSelector(sel);
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

function qualifiedResource(r: GroupVersionResource): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

function internalError(text: string): AdmissionRejection {
  return { code: 500, reason: 'InternalError', message: `Internal error occurred: ${text}`, details: { causes: [{ message: text }] } };
}

function forbidden(attrs: AdmissionAttributes, why: string): AdmissionRejection {
  const gr = qualifiedResource(attrs.resource);
  const name = attrs.name ?? '';
  const message = name ? `${gr} ${goQuote(name)} is forbidden: ${why}` : `${gr} is forbidden: ${why}`;
  const details: AdmissionRejection['details'] = { kind: attrs.resource.resource };
  if (name) details.name = name;
  if (attrs.resource.group) details.group = attrs.resource.group;
  return { code: 403, reason: 'Forbidden', message, details };
}

function namespaceNotFound(ns: string): AdmissionRejection {
  return { code: 404, reason: 'NotFound', message: `namespaces ${goQuote(ns)} not found`, details: { name: ns, kind: 'namespaces' } };
}

/**
 * The request at the version of `inv` (converted once per version and request, as upstream's
 * VersionedAttributes): kind, resource, object and oldObject of the equivalent resource, and the
 * request's own kind and resource as requestKind / requestResource. A failed conversion is an Error.
 */
async function versionedAttributes(
  attrs: AdmissionAttributes,
  inv: Invocation,
  mapper: EquivalentResourceMapper | undefined,
  cache: Map<string, { attrs: AdmissionAttributes; celVars: Map<string, Record<string, unknown>> } | Error>,
): Promise<{ attrs: AdmissionAttributes; celVars: Map<string, Record<string, unknown>> } | Error> {
  // Only another version of the same kind is converted (a /scale request's Scale is the same in every version).
  const otherVersion = inv.kind.group === attrs.kind.group && inv.kind.kind === attrs.kind.kind && inv.kind.version !== attrs.kind.version;
  const key = otherVersion ? inv.kind.version : '';
  const hit = cache.get(key);
  if (hit) return hit;
  let view: { attrs: AdmissionAttributes; celVars: Map<string, Record<string, unknown>> } | Error;
  if (!otherVersion || !mapper?.convert) {
    view = { attrs, celVars: new Map() };
  } else {
    const present = [attrs.object, attrs.oldObject].filter((o) => o !== undefined && o !== null);
    try {
      const out = await mapper.convert(present, inv.resource);
      let i = 0;
      const object = attrs.object !== undefined && attrs.object !== null ? out[i++] : attrs.object;
      const oldObject = attrs.oldObject !== undefined && attrs.oldObject !== null ? out[i++] : attrs.oldObject;
      view = {
        attrs: {
          ...attrs,
          kind: inv.kind,
          resource: inv.resource,
          requestKind: attrs.requestKind ?? attrs.kind,
          requestResource: attrs.requestResource ?? attrs.resource,
          object,
          oldObject,
        },
        celVars: new Map(),
      };
    } catch (e) {
      view = new Error(`failed to convert object to ${inv.kind.group ? `${inv.kind.group}/` : ''}${inv.kind.version}, Kind=${inv.kind.kind}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  cache.set(key, view);
  return view;
}

export class ValidatingAdmission {
  #snapshot: Snapshot = EMPTY;
  readonly #client: WebhookClient;
  readonly #ownsClient: boolean;
  readonly #authorizer: Authorizer;
  #mapper?: EquivalentResourceMapper;
  readonly #onEvent?: (e: WebhookEvent) => void;

  constructor(opts: ValidatingAdmissionOptions = {}) {
    this.#ownsClient = opts.client === undefined;
    this.#client = opts.client ?? new WebhookClient(opts.clientOptions);
    this.#authorizer = opts.authorizer ?? allowAllAuthorizer;
    this.#mapper = opts.equivalentResourceMapper;
    this.#onEvent = opts.onWebhookEvent;
  }

  /** The mapper of equivalent resources (set once the served versions are known, e.g. of CRDs). */
  setEquivalentResourceMapper(mapper: EquivalentResourceMapper | undefined): void {
    this.#mapper = mapper;
  }

  get client(): WebhookClient {
    return this.#client;
  }

  /** Increases by one on every setConfigurations. */
  get generation(): number {
    return this.#snapshot.generation;
  }

  /** The current webhooks in call order (read-only). */
  get webhooks(): readonly PreparedWebhook[] {
    return this.#snapshot.webhooks;
  }

  /**
   * Replaces the whole set of configurations (the server calls this with the full list whenever
   * one is created, updated or deleted). The new snapshot is built completely, then swapped in.
   */
  setConfigurations(list: readonly ValidatingWebhookConfiguration[]): void {
    const previous = new Map<string, PreparedWebhook>();
    for (const w of this.#snapshot.webhooks) if (w.versionKey !== undefined) previous.set(w.versionKey, w);
    const configs = [...list].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
    const webhooks: PreparedWebhook[] = [];
    for (const cfg of configs) {
      const rv = cfg.metadata.resourceVersion;
      (cfg.webhooks ?? []).forEach((hook, index) => {
        const versionKey = rv ? `${cfg.metadata.name}\u0000${cfg.metadata.uid ?? ''}\u0000${rv}\u0000${index}\u0000${hook.name}` : undefined;
        const reuse = versionKey !== undefined ? previous.get(versionKey) : undefined;
        if (reuse) {
          webhooks.push(reuse);
          return;
        }
        const webhook = deepFreeze(structuredClone(hook));
        webhooks.push(
          Object.freeze({
            configuration: cfg.metadata.name,
            index,
            webhook,
            namespaceSelector: compileSelector(webhook.namespaceSelector),
            objectSelector: compileSelector(webhook.objectSelector),
            matchConditions: compileMatchConditions(webhook.matchConditions),
            versionKey,
          }),
        );
      });
    }
    this.#snapshot = Object.freeze({ generation: this.#snapshot.generation + 1, webhooks: Object.freeze(webhooks) });
  }

  /** Closes pooled connections (when the client is ours). */
  close(): void {
    if (this.#ownsClient) this.#client.close();
  }

  async validate(attrs: AdmissionAttributes, opts: ValidateOptions = {}): Promise<AdmissionResult> {
    if (isExemptAdmissionConfigurationResource(attrs)) return { allowed: true, warnings: [] };
    const snapshot = this.#snapshot; // one read: this request uses this set to the end
    if (snapshot.webhooks.length === 0) return { allowed: true, warnings: [] };

    // 1. Select (sequential and in order, as upstream: the first selection error rejects).
    const selected: { hook: PreparedWebhook; inv: Invocation; attrs: AdmissionAttributes }[] = [];
    let nsLabels: Promise<Labels | undefined> | undefined;
    const lookupLabels = (ns: string): Promise<Labels | undefined> => {
      if (nsLabels) return nsLabels;
      const src = attrs.namespaceLabels;
      if (src === undefined) nsLabels = Promise.resolve({});
      else if (typeof src === 'function') nsLabels = Promise.resolve().then(() => src(ns));
      else nsLabels = Promise.resolve(src);
      return nsLabels;
    };
    // The request as each version a webhook registered for sees it (upstream's VersionedAttributes),
    // with the CEL variables of matchConditions per version.
    const versioned = new Map<string, { attrs: AdmissionAttributes; celVars: Map<string, Record<string, unknown>> } | Error>();
    const mapper = this.#mapper;
    for (const hook of snapshot.webhooks) {
      const w = hook.webhook;
      let inv: Invocation | undefined;
      try {
        inv = matchRules(w.rules, w.matchPolicy, attrs, this.#mapper);
      } catch (e) {
        return { allowed: false, rejection: internalError(e instanceof Error ? e.message : String(e)), warnings: [] };
      }
      if (!inv) continue;
      const view = await versionedAttributes(attrs, inv, mapper, versioned);
      if (view instanceof Error) return { allowed: false, rejection: internalError(view.message), warnings: [] };
      if (hook.namespaceSelector instanceof Error) return { allowed: false, rejection: internalError(hook.namespaceSelector.message), warnings: [] };
      if (!hook.namespaceSelector.empty) {
        const source = namespaceLabelSource(attrs);
        let labels: Labels | undefined;
        if (source.kind === 'lookup') {
          try {
            labels = await lookupLabels(source.namespace);
          } catch (e) {
            return { allowed: false, rejection: internalError(e instanceof Error ? e.message : String(e)), warnings: [] };
          }
          if (labels === undefined) return { allowed: false, rejection: namespaceNotFound(source.namespace), warnings: [] };
        }
        if (!matchNamespaceSelector(hook.namespaceSelector, source, labels)) continue;
      }
      if (hook.objectSelector instanceof Error) return { allowed: false, rejection: internalError(hook.objectSelector.message), warnings: [] };
      if (!matchObjectSelector(hook.objectSelector, attrs)) continue;
      const mc = evaluateMatchConditions(
        hook.matchConditions,
        { attrs: view.attrs, resource: inv.resource, kind: inv.kind, authorizer: this.#authorizer, cache: view.celVars },
        w.failurePolicy,
      );
      if ('error' in mc) {
        this.#emit(hook, 'match-condition-error', 0, mc.error);
        return { allowed: false, rejection: forbidden(attrs, mc.error), warnings: [] };
      }
      if (!mc.matches) continue;
      selected.push({ hook, inv, attrs: view.attrs });
    }
    if (selected.length === 0) return { allowed: true, warnings: [] };
    if (opts.signal?.aborted) {
      return { allowed: false, rejection: { code: 504, reason: 'Timeout', message: 'request did not complete within requested timeout', details: {} }, warnings: [] };
    }

    // 2. Call all in parallel, wait for all.
    const results = await Promise.all(selected.map((s) => this.#callOne(s.hook, s.inv, s.attrs, opts.signal)));

    // 3. Aggregate: first rejection in order wins; warnings from all.
    const warnings: string[] = [];
    let rejection: AdmissionRejection | undefined;
    for (const r of results) {
      warnings.push(...r.warnings);
      if (r.rejection && !rejection) rejection = r.rejection;
    }
    return rejection ? { allowed: false, rejection, warnings } : { allowed: true, warnings };
  }

  async #callOne(
    hook: PreparedWebhook,
    inv: Invocation,
    attrs: AdmissionAttributes,
    signal: AbortSignal | undefined,
  ): Promise<{ rejection?: AdmissionRejection; warnings: string[] }> {
    const w = hook.webhook;
    const ignore = w.failurePolicy === 'Ignore';
    const started = Date.now();
    const failed = (reason: string): { rejection?: AdmissionRejection; warnings: string[] } => {
      const text = `failed calling webhook ${goQuote(w.name)}: ${reason}`;
      this.#emit(hook, ignore ? 'failed-open' : 'failed-closed', Date.now() - started, text);
      return ignore ? { warnings: [] } : { rejection: internalError(text), warnings: [] };
    };
    if (attrs.dryRun === true) {
      if (w.sideEffects === undefined || w.sideEffects === '') return failed('Webhook SideEffects is nil');
      if (w.sideEffects !== 'None' && w.sideEffects !== 'NoneOnDryRun') {
        const message = `admission webhook ${goQuote(w.name)} does not support dry run`;
        this.#emit(hook, 'dry-run-unsupported', 0, message);
        return { rejection: { code: 400, reason: 'BadRequest', message }, warnings: [] };
      }
    }
    let out: CallOutcome;
    try {
      out = await this.#client.call(w, attrs, inv, { signal });
    } catch (e) {
      out = { kind: 'error', message: e instanceof Error ? e.message : String(e) };
    }
    switch (out.kind) {
      case 'allowed':
        this.#emit(hook, 'allowed', Date.now() - started);
        return { warnings: out.warnings };
      case 'denied':
        this.#emit(hook, 'denied', Date.now() - started, out.rejection.message);
        return { rejection: out.rejection, warnings: out.warnings };
      default:
        return failed(out.message);
    }
  }

  #emit(hook: PreparedWebhook, outcome: WebhookEvent['outcome'], durationMs: number, message?: string): void {
    if (!this.#onEvent) return;
    try {
      this.#onEvent({ configuration: hook.configuration, webhook: hook.webhook.name, outcome, durationMs, message });
    } catch {
      // observers never break admission
    }
  }
}
