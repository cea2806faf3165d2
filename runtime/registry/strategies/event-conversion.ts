// Conversion between core v1 Events and events.cluster.io/v1 Events: the same objects, stored once
// (as core v1, upstream's storage version of both), with fields renamed as upstream's
// pkg/apis/events/v1/conversion.go does: regarding is involvedObject, note is message,
// reportingController is reportingComponent, and the deprecated* fields are source,
// firstTimestamp, lastTimestamp and count. Every other field has the same name in both.
import type { Obj } from '../../api/object.ts';
import type { ObjectConverter } from '../../object-storage/conversion.ts';

export const CORE_EVENT_API_VERSION = 'v1';
export const EVENTS_API_VERSION = 'events.cluster.io/v1';

/** core v1 field name → events.cluster.io/v1 field name, for the fields whose names differ. */
const RENAMED: ReadonlyArray<readonly [core: string, events: string]> = [
  ['involvedObject', 'regarding'],
  ['message', 'note'],
  ['reportingComponent', 'reportingController'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
];
const toEventsName = new Map(RENAMED.map(([c, e]) => [c, e]));
const toCoreName = new Map(RENAMED.map(([c, e]) => [e, c]));

function renamed(obj: Obj, names: ReadonlyMap<string, string>, apiVersion: string): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(obj)) out[names.get(k) ?? k] = v;
  out.apiVersion = apiVersion;
  out.kind = 'Event';
  return out;
}

/** A core v1 Event as events.cluster.io/v1 sees it. */
export function coreToEventsEvent(obj: Obj): Obj {
  return renamed(obj, toEventsName, EVENTS_API_VERSION);
}

/** An events.cluster.io/v1 Event as core v1 sees it; involvedObject is always there (core's type has it without omitempty). */
export function eventsToCoreEvent(obj: Obj): Obj {
  const out = renamed(obj, toCoreName, CORE_EVENT_API_VERSION);
  if (out.involvedObject === undefined) out.involvedObject = {};
  return out;
}

/** The converter of the events.cluster.io store: objects at either version to either version. */
export const eventConverter: ObjectConverter = {
  async convert(objects, apiVersion) {
    return objects.map((o) => {
      if (o.apiVersion === apiVersion) return o;
      if (apiVersion === EVENTS_API_VERSION && o.apiVersion === CORE_EVENT_API_VERSION) return coreToEventsEvent(o);
      if (apiVersion === CORE_EVENT_API_VERSION && o.apiVersion === EVENTS_API_VERSION) return eventsToCoreEvent(o);
      throw new Error(`no conversion of an Event from ${String(o.apiVersion)} to ${apiVersion}`);
    });
  },
};
