// The converter of a CRD's custom resources between its versions, built once per CRD generation
// (CustomResourceServing.install) and handed to every Store of the CRD: strategy None changes only
// apiVersion; strategy Webhook asks the CRD's conversion webhook (conversion-webhook.ts). Objects
// are converted from whatever apiVersion they carry (storage may hold several) to the one asked for.

import type { WebhookClient } from '../admission/client.ts';
import type { WebhookClientConfig } from '../admission/types.ts';
import { checkVersions } from './conversion-checks.ts';
import type { ConvertOptions, CustomResourceConverter } from './conversion-types.ts';
import { WebhookConverter } from './conversion-webhook.ts';
import type { CustomResourceDefinition } from './types.ts';
import { isObject } from '../json/is-object.ts';

export { conversionFailure } from './conversion-errors.ts';
export type { ConvertOptions, CustomResourceConverter } from './conversion-types.ts';

type Obj = Record<string, unknown>;

/** Strategy None: a copy with only apiVersion changed. */
export class NoneConverter implements CustomResourceConverter {
  readonly strategy = 'None';
  constructor(private readonly valid: ReadonlySet<string>) {}

  async convert(objects: readonly Obj[], apiVersion: string): Promise<Obj[]> {
    checkVersions(objects, apiVersion, this.valid);
    return objects.map((o) => (o.apiVersion === apiVersion ? o : { ...o, apiVersion }));
  }
}

export interface ConverterDeps {
  /** The webhook transport (shared with admission: one connection pool, one service resolver). */
  client: WebhookClient;
}

/**
 * The converter of a CRD. An unknown strategy is treated as None only for reading what is stored
 * (the CRD validation rejects it on write).
 */
export function buildConverter(crd: CustomResourceDefinition, deps: ConverterDeps): CustomResourceConverter {
  const valid = new Set(crd.spec.versions.map((v) => `${crd.spec.group}/${v.name}`));
  const conversion = crd.spec.conversion;
  if (conversion?.strategy !== 'Webhook') return new NoneConverter(valid);
  const webhook = isObject(conversion.webhook) ? conversion.webhook : {};
  const clientConfig = isObject(webhook.clientConfig) ? (webhook.clientConfig as WebhookClientConfig) : undefined;
  const versions = Array.isArray(webhook.conversionReviewVersions) ? (webhook.conversionReviewVersions as unknown[]) : [];
  return new WebhookConverter({ crdName: crd.metadata?.name ?? '', clientConfig, conversionReviewVersions: versions, validVersions: valid, client: deps.client });
}
