// core v1 Event (upstream pkg/registry/core/event/strategy.go and
// pkg/apis/core/validation/events.go). A write through core v1 gets upstream's legacy event
// validation only, on create and on update alike (the stricter checks and the immutable fields of
// ValidateEventCreate/Update apply to writes through events.cluster.io, strategies/events-event.ts).
// A PUT of an event that does not exist creates it (upstream's AllowCreateOnUpdate). The legacy validation:
//  - without eventTime (an old-style recorder), involvedObject.namespace must equal the event's
//    namespace; an event about a cluster-scoped object (no involvedObject.namespace) lives in
//    `default` (or has no namespace);
//  - with eventTime (a new-style recorder), an event about a cluster-scoped object lives in
//    `default` or `kube-system`, and reportingComponent (a qualified name), reportingInstance,
//    action and reason are required; reportingInstance, action and reason have at most 128
//    characters, message at most 1024 (Go's len: UTF-8 bytes);
//  - the namespace is a DNS-1123 subdomain.
// Errors carry upstream's paths and wording: the reporting controller is `reportingController`
// (the internal field name) and a length error shows an empty value, as upstream's do.
//
// Field selectors: `source` is source.component, else reportingComponent (upstream
// EventToSelectableFields); the other event fields are plain paths (spec/resources/event.yaml).

import { fieldErr } from '../../schema/errors.ts';
import { isDNS1123Subdomain, isQualifiedName } from '../../schema/syntax.ts';
import type { FieldError } from '../../schema/types.ts';
import { isObj, metaOf, type Obj } from '../../api/object.ts';
import type { Strategy } from '../strategy.ts';

const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const goLen = (s: string): number => Buffer.byteLength(s, 'utf8');

/** A Time or MicroTime that is set (Go's non-zero time): present, not null, not empty. */
function timeIsSet(v: unknown): boolean {
  return typeof v === 'string' && v !== '';
}

function lengthErrors(obj: Obj, field: string, limit: number, required: boolean): FieldError[] {
  const v = text(obj[field]);
  const errs: FieldError[] = [];
  if (required && v === '') errs.push(fieldErr.required(field));
  if (goLen(v) > limit) errs.push(fieldErr.invalid(field, '', `can have at most ${limit} characters`));
  return errs;
}

/** upstream legacyValidateEvent. */
export function validateLegacyEvent(obj: Obj): FieldError[] {
  const errs: FieldError[] = [];
  const namespace = text(metaOf(obj).namespace);
  const involved = isObj(obj.involvedObject) ? obj.involvedObject : {};
  const involvedNamespace = text(involved.namespace);
  const namespaceMismatch = (): FieldError => fieldErr.invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace');
  if (!timeIsSet(obj.eventTime)) {
    if (involvedNamespace === '') {
      if (namespace !== '' && namespace !== 'default') errs.push(namespaceMismatch());
    } else if (namespace !== involvedNamespace) {
      errs.push(namespaceMismatch());
    }
  } else {
    if (involvedNamespace === '' && namespace !== 'default' && namespace !== 'kube-system') errs.push(namespaceMismatch());
    const controller = text(obj.reportingComponent);
    if (controller === '') errs.push(fieldErr.required('reportingController'));
    for (const msg of isQualifiedName(controller)) errs.push(fieldErr.invalid('reportingController', controller, msg));
    errs.push(...lengthErrors(obj, 'reportingInstance', REPORTING_INSTANCE_LIMIT, true));
    errs.push(...lengthErrors(obj, 'action', ACTION_LIMIT, true));
    errs.push(...lengthErrors(obj, 'reason', REASON_LIMIT, true));
    errs.push(...lengthErrors(obj, 'message', NOTE_LIMIT, false));
  }
  for (const msg of isDNS1123Subdomain(namespace)) errs.push(fieldErr.invalid('namespace', namespace, msg));
  return errs;
}

/** The `source` field of the selectable fields: source.component, else reportingComponent. */
export function eventSourceField(obj: Obj): string {
  const component = isObj(obj.source) ? text(obj.source.component) : '';
  return component !== '' ? component : text(obj.reportingComponent);
}

/**
 * involvedObject is a struct without omitempty upstream: an Event written without it is decoded as
 * the zero reference and stored and answered as `involvedObject: {}`.
 */
function involvedObjectAsZero(obj: Obj): void {
  if (obj.involvedObject === undefined) obj.involvedObject = {};
}

export const eventStrategy: Strategy = {
  // upstream's event strategy: a PUT of an event that does not exist creates it
  allowCreateOnUpdate: true,
  prepareForCreate: involvedObjectAsZero,
  prepareForUpdate: involvedObjectAsZero,
  validate: validateLegacyEvent,
  validateUpdate: (obj) => validateLegacyEvent(obj),
  fieldValues: (obj) => ({ source: eventSourceField(obj) }),
};
