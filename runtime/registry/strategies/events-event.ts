// events.cluster.io/v1 Event (upstream pkg/registry/core/event/strategy.go, the same strategy as
// core v1's, and pkg/apis/core/validation/events.go ValidateEventCreate/ValidateEventUpdate with a
// request version of the events API). The objects are core v1 Events, stored once under core's keys
// (runtime/events/event-conversion.ts); a write through this API is validated on its core form, as
// upstream validates the internal object, so errors name the internal (core) fields:
//  - create: the legacy event validation (strategies/event.ts), then the series (count at least 2,
//    lastObservedTime required), type Normal or Warning, and firstTimestamp, lastTimestamp, count
//    and source unset (here deprecatedFirstTimestamp, deprecatedLastTimestamp, deprecatedCount and
//    deprecatedSource); eventTime is required by the schema, and the name is a DNS-1123 subdomain
//    (the resource's nameSyntax, upstream's ValidateObjectMeta with NameIsDNSSubdomain);
//  - update: the legacy validation of the new object, the series when it changed, and every event
//    field immutable (involvedObject, reason (checked twice, as upstream), message, source, the
//    timestamps, count, type, eventTime, action, related, reportingController, reportingInstance).
// Immutable values are rendered as upstream's field errors render the internal Go values: structs
// as Go's %#v, times through time.Time's String.
// Field selectors: `source` is deprecatedSource.component, else reportingController (upstream
// EventToSelectableFields on the internal object); regarding.*, reason, reportingController and
// type are plain paths (spec/resources/events-event.yaml).

import { CORE_EVENT_API_VERSION, eventConverter, eventsToCoreEvent } from './event-conversion.ts';
import { fieldErr } from '../../schema/errors.ts';
import type { FieldError } from '../../schema/types.ts';
import { deepEqual, isObj, type Obj } from '../../api/object.ts';
import type { Strategy } from '../strategy.ts';
import { validateLegacyEvent } from './event.ts';

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const timeIsSet = (v: unknown): boolean => typeof v === 'string' && v !== '';

/** upstream validateV1EventSeries, on the core form. */
function seriesErrors(core: Obj): FieldError[] {
  if (!isObj(core.series)) return [];
  const errs: FieldError[] = [];
  const count = typeof core.series.count === 'number' ? core.series.count : 0;
  if (count < 2) errs.push(fieldErr.invalid('series.count', '', 'should be at least 2'));
  if (!timeIsSet(core.series.lastObservedTime)) errs.push(fieldErr.required('series.lastObservedTime'));
  return errs;
}

/** The strict checks of upstream ValidateEventCreate beyond the legacy ones, on the core form. */
function strictCreateErrors(core: Obj): FieldError[] {
  const errs = seriesErrors(core);
  const type = text(core.type);
  if (type !== 'Normal' && type !== 'Warning') errs.push(fieldErr.invalid('type', '', `has invalid value: ${type}`));
  if (timeIsSet(core.firstTimestamp)) errs.push(fieldErr.invalid('firstTimestamp', '', 'needs to be unset'));
  if (timeIsSet(core.lastTimestamp)) errs.push(fieldErr.invalid('lastTimestamp', '', 'needs to be unset'));
  if (typeof core.count === 'number' && core.count !== 0) errs.push(fieldErr.invalid('count', '', 'needs to be unset'));
  const source = isObj(core.source) ? core.source : {};
  if (text(source.component) !== '' || text(source.host) !== '') errs.push(fieldErr.invalid('source', '', 'needs to be unset'));
  return errs;
}

/** Go's time.Time String() of a time decoded from RFC 3339 in UTC: `2006-01-02 15:04:05.999999999 +0000 UTC` (the zero time when unset). */
export function goTimeString(v: unknown): string {
  const m = typeof v === 'string' ? /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.(\d+))?(?:Z|[+-]\d{2}:\d{2})$/.exec(v) : null;
  const ms = m ? Date.parse(v as string) : NaN;
  if (!m || Number.isNaN(ms)) return '0001-01-01 00:00:00 +0000 UTC';
  const iso = new Date(ms).toISOString();
  const frac = (m[1] ?? '').replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${frac ? `.${frac}` : ''} +0000 UTC`;
}

/** Go's %#v of an internal struct whose fields are all strings. */
function goStruct(type: string, fields: ReadonlyArray<readonly [goName: string, jsonName: string]>, v: unknown): string {
  const o = isObj(v) ? v : {};
  return `${type}{${fields.map(([g, j]) => `${g}:${JSON.stringify(text(o[j]))}`).join(', ')}}`;
}

const OBJECT_REFERENCE_FIELDS = [
  ['Kind', 'kind'], ['Namespace', 'namespace'], ['Name', 'name'], ['UID', 'uid'],
  ['APIVersion', 'apiVersion'], ['ResourceVersion', 'resourceVersion'], ['FieldPath', 'fieldPath'],
] as const;
const EVENT_SOURCE_FIELDS = [['Component', 'component'], ['Host', 'host']] as const;

/** The bad value of an immutable-field error as upstream's field error prints the internal Go value. */
type Render = (v: unknown) => string;
const asString: Render = (v) => JSON.stringify(text(v));
const asInt: Render = (v) => String(typeof v === 'number' ? v : 0);
// metav1.Time and MicroTime are fmt.Stringers: printed unquoted
const asTime: Render = (v) => goTimeString(v);
const asReference: Render = (v) => goStruct('core.ObjectReference', OBJECT_REFERENCE_FIELDS, v);
// a nil *ObjectReference is printed as the quoted string "null"
const asOptionalReference: Render = (v) => (isObj(v) ? asReference(v) : '"null"');
const asSource: Render = (v) => goStruct('core.EventSource', EVENT_SOURCE_FIELDS, v);

/** upstream ValidateEventUpdate's immutable fields, in its order (reason twice), by core name. */
const IMMUTABLE: ReadonlyArray<readonly [string, Render]> = [
  ['involvedObject', asReference],
  ['reason', asString],
  ['message', asString],
  ['source', asSource],
  ['firstTimestamp', asTime],
  ['lastTimestamp', asTime],
  ['count', asInt],
  ['reason', asString],
  ['type', asString],
  ['eventTime', asTime],
  ['action', asString],
  ['related', asOptionalReference],
  ['reportingComponent', asString],
  ['reportingInstance', asString],
];

/** The internal field name upstream reports (core's reportingComponent is the internal ReportingController). */
const reportedPath = (coreName: string): string => (coreName === 'reportingComponent' ? 'reportingController' : coreName);

function immutable(field: string, rendered: string): FieldError {
  return { field, reason: 'FieldValueInvalid', message: `Invalid value: ${rendered}: field is immutable` };
}

/** upstream ValidateEventCreate for a write through the events API. */
export function validateEventsEventCreate(obj: Obj): FieldError[] {
  const core = eventsToCoreEvent(obj);
  return [...validateLegacyEvent(core), ...strictCreateErrors(core)];
}

/** upstream ValidateEventUpdate for a write through the events API (metadata is the schema's). */
export function validateEventsEventUpdate(obj: Obj, old: Obj): FieldError[] {
  const core = eventsToCoreEvent(obj);
  const oldCore = eventsToCoreEvent(old);
  const errs = validateLegacyEvent(core);
  if (!deepEqual(core.series, oldCore.series)) errs.push(...seriesErrors(core));
  for (const [field, render] of IMMUTABLE) {
    // Go's equality of the internal values is the equality of their printed forms here (zero values included)
    const now = render(core[field]);
    if (now !== render(oldCore[field])) errs.push(immutable(reportedPath(field), now));
  }
  return errs;
}

/** The `source` field of the selectable fields: deprecatedSource.component, else reportingController. */
export function eventsEventSourceField(obj: Obj): string {
  const component = isObj(obj.deprecatedSource) ? text(obj.deprecatedSource.component) : '';
  return component !== '' ? component : text(obj.reportingController);
}

export const eventsEventStrategy: Strategy = {
  allowCreateOnUpdate: true,
  storedWith: { group: '', plural: 'events', apiVersion: CORE_EVENT_API_VERSION, converter: eventConverter },
  validate: validateEventsEventCreate,
  validateUpdate: validateEventsEventUpdate,
  fieldValues: (obj) => ({ source: eventsEventSourceField(obj) }),
};
