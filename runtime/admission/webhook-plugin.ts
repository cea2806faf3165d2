// The validating admission webhooks as a plugin of the admission chain (upstream's
// ValidatingAdmissionWebhook plugin): the engine (dispatcher.ts) with the configurations in force,
// which the assembly keeps current from an informer on ValidatingWebhookConfigurations (the engine
// swaps whole snapshots, so no request sees a half-updated set). Only requests from clients are
// sent to webhooks; the server's own writes carry no AdmissionRequest.
// Webhook configuration problems (a webhook failing open) are logged, never recorded as Events:
// upstream's webhook plugin records none (runtime/events/README.md).

import type { Obj } from '../api/object.ts';
import { ApiError, type StatusReason } from '../errors/api-error.ts';
import type { AdmissionCheck, AdmissionPlugin, AdmissionRequest } from './chain.ts';
import { ValidatingAdmission, type ValidatingAdmissionOptions, type WebhookEvent } from './dispatcher.ts';
import type { NamespaceLookup } from './namespace-lifecycle.ts';
import type { AdmissionAttributes, ValidatingWebhookConfiguration } from './types.ts';

export interface WebhookAdmissionOptions extends ValidatingAdmissionOptions {
  /** Where webhooks failing open are reported (default: stderr). */
  log?: (line: string) => void;
  /** Labels of namespaces, for namespaceSelector. */
  namespaces?: NamespaceLookup;
}

export class WebhookAdmission implements AdmissionPlugin {
  readonly name = 'ValidatingAdmissionWebhook';
  readonly engine: ValidatingAdmission;
  private names: string[] = [];

  constructor(private readonly opts: WebhookAdmissionOptions = {}) {
    const log = opts.log ?? ((l: string) => process.stderr.write(`${l}\n`));
    const userEvent = opts.onWebhookEvent;
    this.engine = new ValidatingAdmission({
      ...opts,
      onWebhookEvent: (e: WebhookEvent) => {
        if (e.outcome === 'failed-open') log(`admission: ${e.configuration}/${e.webhook}: ignored (failurePolicy Ignore): ${e.message ?? ''}`);
        userEvent?.(e);
      },
    });
  }

  /** Puts a new set of configurations in force, whole. */
  setConfigurations(configs: readonly ValidatingWebhookConfiguration[]): void {
    this.engine.setConfigurations([...configs]);
    this.names = configs.map((c) => c.metadata.name).sort();
  }

  /** The configurations in effect (names), for tests and logs. */
  get configurationNames(): string[] {
    return [...this.names];
  }

  /** Closes the webhook connections. */
  stop(): void {
    this.engine.close();
  }

  async validate(check: AdmissionCheck, request: AdmissionRequest | undefined): Promise<readonly string[]> {
    if (!request || this.engine.webhooks.length === 0) return [];
    const r = check.resource;
    const isNamespace = r.group === '' && r.plural === 'namespaces';
    const namespace = r.namespaced ? (check.namespace ?? '') : isNamespace && (request.namedPath || check.operation !== 'CREATE') ? check.name : '';
    const typed = (o: Obj | undefined): Obj | null => {
      if (o === undefined) return null;
      const { kind: _k, apiVersion: _a, ...rest } = o;
      return { kind: r.kind, apiVersion: r.group ? `${r.group}/${r.version}` : r.version, ...rest };
    };
    const attrs: AdmissionAttributes = {
      operation: check.operation,
      kind: { group: r.group, version: r.version, kind: r.kind },
      resource: { group: r.group, version: r.version, resource: r.plural },
      subResource: check.subresource ?? '',
      name: check.name,
      namespace,
      object: typed(check.object),
      oldObject: typed(check.oldObject),
      dryRun: check.dryRun,
      options: request.options[check.operation] ?? null,
      userInfo: { username: request.user.username, uid: request.user.uid, groups: [...(request.user.groups ?? [])] },
      namespaceLabels: (ns: string) => this.opts.namespaces?.labels(ns) ?? Promise.resolve(undefined),
    };
    const result = await this.engine.validate(attrs, { signal: request.signal });
    if (!result.allowed) {
      const j = result.rejection;
      const e = new ApiError(j.code, j.reason as StatusReason, j.message, j.details);
      // webhook warnings go out with the rejection too
      e.warnings.push(...result.warnings);
      throw e;
    }
    return result.warnings;
  }
}
