// The ConversionReview wire format of conversion webhooks: the request the API server sends and
// the checks of the webhook's answer, in the words of upstream's webhook converter
// (apiextensions-apiserver pkg/apiserver/conversion/webhook_converter.go). Pure functions: the
// transport is runtime/admission's WebhookClient, the per-object checks are conversion-checks.ts.

import type { IncomingMessage } from 'node:http';
import { unstructuredResponseError } from '../admission/client.ts';
import { isObject } from '../json/is-object.ts';

type Obj = Record<string, unknown>;

export const CONVERSION_REVIEW_GROUP = 'apiextensions.cluster.io';
/** The ConversionReview versions this server speaks, in upstream's order of preference-free support. */
export const SUPPORTED_CONVERSION_REVIEW_VERSIONS = ['v1', 'v1beta1'] as const;
export type ConversionReviewVersion = (typeof SUPPORTED_CONVERSION_REVIEW_VERSIONS)[number];

/** Upstream's text when none of conversionReviewVersions is supported. */
export const NO_SUPPORTED_REVIEW_VERSIONS = 'no supported conversion review versions';

/** The first of the CRD's conversionReviewVersions this server supports (the CRD's order wins). */
export function pickConversionReviewVersion(versions: readonly unknown[] | undefined): ConversionReviewVersion | undefined {
  for (const v of versions ?? []) {
    if ((SUPPORTED_CONVERSION_REVIEW_VERSIONS as readonly unknown[]).includes(v)) return v as ConversionReviewVersion;
  }
  return undefined;
}

export function buildConversionReview(version: ConversionReviewVersion, uid: string, desiredAPIVersion: string, objects: readonly Obj[]): Obj {
  return {
    kind: 'ConversionReview',
    apiVersion: `${CONVERSION_REVIEW_GROUP}/${version}`,
    request: { uid, desiredAPIVersion, objects },
  };
}

export interface HttpAnswer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export type ReviewOutcome = { ok: true; objects: unknown[] } | { ok: false; message: string };

/**
 * Checks a webhook's HTTP answer to a review. `message` of a failure is what upstream prints after
 * `conversion webhook for <gvk> failed: `.
 */
export function convertedObjectsFromAnswer(version: ConversionReviewVersion, uid: string, res: HttpAnswer): ReviewOutcome {
  const contentType = String(res.headers['content-type'] ?? '');
  if (res.status < 200 || res.status > 206) {
    // client-go uses a Status body as the error, else a text per status code
    try {
      const s = JSON.parse(res.body.toString('utf8')) as unknown;
      if (isObject(s) && s.kind === 'Status' && typeof s.message === 'string' && s.message !== '') return { ok: false, message: s.message };
    } catch {
      // not JSON: the generic text below
    }
    return { ok: false, message: unstructuredResponseError(res.status, res.headers, res.body) };
  }
  if (res.body.length === 0) {
    return { ok: false, message: `0-length response with status code: ${res.status} and content type: ${contentType}` };
  }
  const text = res.body.toString('utf8');
  let review: unknown;
  try {
    review = JSON.parse(text);
  } catch (e) {
    return { ok: false, message: `couldn't get version/kind; json parse error: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (!isObject(review)) {
    const word = Array.isArray(review) ? 'array' : review === null ? 'null' : typeof review === 'boolean' ? 'bool' : typeof review;
    return { ok: false, message: `couldn't get version/kind; json parse error: json: cannot unmarshal ${word} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }` };
  }
  if (typeof review.kind !== 'string' || review.kind === '') return { ok: false, message: `Object 'Kind' is missing in '${text}'` };
  const apiVersion = typeof review.apiVersion === 'string' ? review.apiVersion : '';
  if (version === 'v1') {
    // v1 answers are checked for their type and uid; v1beta1 never was (upstream keeps that)
    const want = `${CONVERSION_REVIEW_GROUP}/v1, Kind=ConversionReview`;
    const got = `${gvkText(apiVersion, review.kind)}`;
    if (got !== want) return { ok: false, message: `expected webhook response of ${want}, got ${got}` };
  }
  const response = review.response;
  if (!isObject(response)) return { ok: false, message: 'no response provided' };
  if (version === 'v1') {
    const got = typeof response.uid === 'string' ? response.uid : '';
    if (got !== uid) return { ok: false, message: `expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(got)}` };
  }
  const result = isObject(response.result) ? response.result : {};
  const status = typeof result.status === 'string' ? result.status : '';
  if (status !== 'Success') {
    if (typeof result.message === 'string' && result.message !== '') return { ok: false, message: result.message };
    return { ok: false, message: `response.result.status was '${status}', not 'Success'` };
  }
  return { ok: true, objects: Array.isArray(response.convertedObjects) ? response.convertedObjects : [] };
}

/** Go's GroupVersionKind.String() of an apiVersion and kind: `group/version, Kind=kind`. */
export function gvkText(apiVersion: string, kind: string): string {
  const gv = parseGroupVersion(apiVersion);
  return `${gv.group}/${gv.version}, Kind=${kind}`;
}

/** Go's schema.ParseGroupVersion, an unparsable value giving the empty group/version. */
export function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0], version: parts[1] };
  return { group: '', version: '' };
}

/** Go's GroupVersion.String(): the version alone for the core group. */
export function groupVersionText(apiVersion: string): string {
  const gv = parseGroupVersion(apiVersion);
  return gv.group === '' ? gv.version : `${gv.group}/${gv.version}`;
}

/** The Go type name (%T) a JSON value decodes to in an unstructured object. */
export function goJsonType(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}
