// Strategy Webhook: one ConversionReview per call carrying every object not yet at the desired
// version, POSTed over runtime/admission's pooled, CA-verified transport (30 s, upstream's timeout
// for conversion webhooks), and the answer checked object by object as upstream does.

import { randomUUID } from 'node:crypto';
import type { WebhookClient } from '../admission/client.ts';
import type { WebhookClientConfig } from '../admission/types.ts';
import { asUnstructured, checkGroupVersion, checkKind, checkVersions, restoreObjectMeta, validateConvertedObject } from './conversion-checks.ts';
import { conversionFailure } from './conversion-errors.ts';
import {
  buildConversionReview,
  convertedObjectsFromAnswer,
  gvkText,
  NO_SUPPORTED_REVIEW_VERSIONS,
  pickConversionReviewVersion,
} from './conversion-review.ts';
import type { ConvertOptions, CustomResourceConverter } from './conversion-types.ts';

type Obj = Record<string, unknown>;

/** Upstream's conversion webhook timeout (the `?timeout=30s` its requests carry). */
export const CONVERSION_WEBHOOK_TIMEOUT_SECONDS = 30;

export interface WebhookConverterOptions {
  crdName: string;
  clientConfig: WebhookClientConfig | undefined;
  conversionReviewVersions: readonly unknown[];
  /** `<group>/<version>` of every version of the CRD. */
  validVersions: ReadonlySet<string>;
  client: WebhookClient;
  timeoutSeconds?: number;
}

export class WebhookConverter implements CustomResourceConverter {
  readonly strategy = 'Webhook';
  constructor(private readonly o: WebhookConverterOptions) {}

  async convert(objects: readonly Obj[], apiVersion: string, opts: ConvertOptions = {}): Promise<Obj[]> {
    checkVersions(objects, apiVersion, this.o.validVersions);
    const pending: number[] = [];
    objects.forEach((o, i) => {
      if (o.apiVersion !== apiVersion) pending.push(i);
    });
    if (pending.length === 0) return [...objects];
    const sent = pending.map((i) => objects[i]);
    // upstream names the object it converts; for a batch the first one sent stands for the list
    const subject = gvkText(String(sent[0].apiVersion ?? ''), String(sent[0].kind ?? ''));
    const version = pickConversionReviewVersion(this.o.conversionReviewVersions);
    if (!version) throw conversionFailure(NO_SUPPORTED_REVIEW_VERSIONS);
    const uid = randomUUID();
    const body = Buffer.from(JSON.stringify(buildConversionReview(version, uid, apiVersion, sent)));
    const res = await this.o.client.post(this.o.clientConfig, body, this.o.timeoutSeconds ?? CONVERSION_WEBHOOK_TIMEOUT_SECONDS, { signal: opts.signal });
    if (res.kind === 'error') throw conversionFailure(`conversion webhook for ${subject} failed: ${res.message}`);
    const answer = convertedObjectsFromAnswer(version, uid, res);
    if (!answer.ok) throw conversionFailure(`conversion webhook for ${subject} failed: ${answer.message}`);
    if (answer.objects.length !== sent.length) {
      throw conversionFailure(`conversion webhook for ${subject} returned ${answer.objects.length} objects, expected ${sent.length}`);
    }
    const out = [...objects];
    const list = opts.list === true || objects.length > 1;
    pending.forEach((at, n) => {
      out[at] = list ? this.checkListItem(subject, sent[n], answer.objects[n], apiVersion, n) : this.checkSingle(subject, sent[n], answer.objects[n], apiVersion);
    });
    return out;
  }

  /** The checks of a single object, with upstream's single-object wording. */
  private checkSingle(subject: string, original: Obj, raw: unknown, apiVersion: string): Obj {
    const converted = asUnstructured(raw);
    if (typeof converted === 'string') throw conversionFailure(converted);
    let why = checkGroupVersion(converted, apiVersion) ?? checkKind(original, converted);
    if (why !== undefined) throw conversionFailure(`conversion webhook for ${subject} returned invalid object at index 0: ${why}`);
    why = validateConvertedObject(original, converted);
    if (why !== undefined) throw conversionFailure(`conversion webhook for ${subject} returned invalid object: ${why}`);
    why = restoreObjectMeta(original, converted);
    if (why !== undefined) throw conversionFailure(`conversion webhook for ${subject} returned invalid metadata: ${why}`);
    return converted;
  }

  /**
   * The checks of one object of a batch, with upstream's list wording: its index counts from 0 for
   * an undecodable object and from 1 for the other checks (upstream increments in between).
   */
  private checkListItem(subject: string, original: Obj, raw: unknown, apiVersion: string, index: number): Obj {
    const converted = asUnstructured(raw);
    if (typeof converted === 'string') throw conversionFailure(`conversion webhook for ${subject} returned invalid converted object at index ${index}: ${converted}`);
    const at = index + 1;
    const why = checkGroupVersion(converted, apiVersion) ?? checkKind(original, converted) ?? validateConvertedObject(original, converted);
    if (why !== undefined) throw conversionFailure(`conversion webhook for ${subject} returned invalid converted object at index ${at}: ${why}`);
    const meta = restoreObjectMeta(original, converted);
    if (meta !== undefined) throw conversionFailure(`conversion webhook for ${subject} returned invalid metadata in object at index ${at}: ${meta}`);
    return converted;
  }
}
