// What a converted object may differ in from the object sent for conversion, as upstream checks it
// (webhook_converter.go validateConvertedObject/restoreObjectMeta): the desired group/version, the
// same kind, name, namespace and uid; of metadata only labels and annotations are taken from the
// webhook (validated when changed), everything else is restored from the original.

import { aggregateFieldErrors } from '../errors/api-error.ts';
import { validateAnnotations, validateLabels } from '../schema/metadata.ts';
import type { FieldError } from '../schema/types.ts';
import { conversionFailure } from './conversion-errors.ts';
import { goJsonType, groupVersionText } from './conversion-review.ts';
import { deepCopy } from '../json/clone.ts';
import { isObject } from '../json/is-object.ts';

type Obj = Record<string, unknown>;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const metaField = (o: Obj, k: string): string => (isObject(o.metadata) ? str(o.metadata[k]) : '');

/** Parses a converted object as unstructured decoding does; an error text when it cannot be one. */
export function asUnstructured(v: unknown): Obj | string {
  if (!isObject(v)) return `json: cannot unmarshal ${Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v} into Go value of type map[string]interface {}`;
  if (typeof v.kind !== 'string' || v.kind === '') return `Object 'Kind' is missing in '${JSON.stringify(v)}'`;
  return v;
}

/** The group/version check: the text after `...at index N: `, or undefined when it is the desired one. */
export function checkGroupVersion(converted: Obj, desiredAPIVersion: string): string | undefined {
  const got = groupVersionText(str(converted.apiVersion));
  const want = groupVersionText(desiredAPIVersion);
  return got === want ? undefined : `invalid groupVersion (expected ${want}, received ${got})`;
}

export function checkKind(original: Obj, converted: Obj): string | undefined {
  const want = str(original.kind);
  const got = str(converted.kind);
  return want === got ? undefined : `invalid kind (expected ${want}, received ${got})`;
}

/** upstream validateConvertedObject: kind, name, namespace and uid must not change. */
export function validateConvertedObject(original: Obj, converted: Obj): string | undefined {
  const pairs: [string, string, string][] = [
    ['kind', str(original.kind), str(converted.kind)],
    ['name', metaField(original, 'name'), metaField(converted, 'name')],
    ['namespace', metaField(original, 'namespace'), metaField(converted, 'namespace')],
    ['UID', metaField(original, 'uid'), metaField(converted, 'uid')],
  ];
  for (const [what, want, got] of pairs) if (want !== got) return `must have the same ${what}: ${want} != ${got}`;
  return undefined;
}

/**
 * upstream restoreObjectMeta: `converted.metadata` becomes a copy of the original's, with labels and
 * annotations taken from the webhook's answer (absent there → removed). Returns an error text.
 */
export function restoreObjectMeta(original: Obj, converted: Obj): string | undefined {
  if (!('metadata' in converted)) return 'missing metadata in converted object';
  const answered = converted.metadata;
  if (!isObject(answered)) return `invalid metadata of type ${goJsonType(answered)} in converted object`;
  const restored: Obj = isObject(original.metadata) ? deepCopy(original.metadata) : {};
  for (const field of ['labels', 'annotations'] as const) {
    const value = answered[field];
    if (value === undefined || value === null) {
      delete restored[field];
      continue;
    }
    if (!isObject(value)) return `invalid metadata.${field} of type ${goJsonType(value)} in converted object`;
    const before = restored[field];
    if (before !== undefined && before !== null && !isObject(before)) return `invalid metadata.${field} of type ${goJsonType(before)} in original object`;
    const old = isObject(before) ? before : {};
    let changed = Object.keys(old).length !== Object.keys(value).length;
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== 'string') return `metadata.${field}[${k}] must be a string, but is ${goJsonType(v)} in converted object`;
      if (old[k] !== v) changed = true;
    }
    if (changed) {
      const errs: FieldError[] = [];
      // upstream validates annotations under the path "metadata.annotation" (sic)
      if (field === 'labels') validateLabels(value, 'metadata.labels', errs);
      else validateAnnotations(value, 'metadata.annotation', errs);
      if (errs.length) return aggregateFieldErrors(errs);
    }
    restored[field] = value;
  }
  converted.metadata = restored;
  return undefined;
}

/** Upstream's check that both ends of a conversion are versions of the CRD (throws the 500). */
export function checkVersions(objects: readonly Obj[], apiVersion: string, valid: ReadonlySet<string>): void {
  if (!valid.has(apiVersion)) throw conversionFailure(`request to convert CR to an invalid group/version: ${apiVersion}`);
  for (const o of objects) {
    const from = str(o.apiVersion);
    if (!valid.has(from)) throw conversionFailure(`request to convert CR from an invalid group/version: ${from}`);
  }
}
