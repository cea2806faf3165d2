// An Event's First Seen, Last Seen and Count cells, as upstream's printEvent derives them from the
// two generations of event fields: firstTimestamp/lastTimestamp/count (core v1 recorders) and
// eventTime/series (events API recorders). A zero or absent time prints `<unknown>`. An
// events.cluster.io Event carries the core fields as deprecatedFirstTimestamp, deprecatedLastTimestamp
// and deprecatedCount (upstream prints both versions from the one internal object).
import type { CellFormatter } from './types.ts';
import { isObj, type Obj } from '../api/object.ts';
import { humanDuration } from './human-duration.ts';

/** The time a timestamp field holds; undefined when absent, null or unparseable (Go's zero time). */
function timeOf(v: unknown): number | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  const t = Date.parse(v);
  return Number.isNaN(t) ? undefined : t;
}

const since = (t: number | undefined, now: number): string => (t === undefined ? '<unknown>' : humanDuration(now - t));

function seriesOf(obj: Obj): Obj | undefined {
  return isObj(obj.series) ? obj.series : undefined;
}

/** firstTimestamp, else eventTime. */
function firstSeen(obj: Obj, now: number): string {
  const first = timeOf(obj.firstTimestamp ?? obj.deprecatedFirstTimestamp);
  return since(first ?? timeOf(obj.eventTime), now);
}

export const eventFirstSeen: CellFormatter = (_value, obj, now) => firstSeen(obj, now);

/** series.lastObservedTime when a series is set, else lastTimestamp, else the First Seen cell. */
export const eventLastSeen: CellFormatter = (_value, obj, now) => {
  const series = seriesOf(obj);
  if (series) return since(timeOf(series.lastObservedTime), now);
  const last = timeOf(obj.lastTimestamp ?? obj.deprecatedLastTimestamp);
  return last === undefined ? firstSeen(obj, now) : since(last, now);
};

/** series.count when a series is set; otherwise count, where 0 (a singleton of the new API) counts 1. */
export const eventCount: CellFormatter = (_value, obj) => {
  const series = seriesOf(obj);
  if (series) return typeof series.count === 'number' ? series.count : 0;
  const count = obj.count ?? obj.deprecatedCount;
  return typeof count === 'number' && count !== 0 ? count : 1;
};
