// Records core v1 Events about objects for the server's own controllers (upstream's
// record.EventRecorder, without its aggregation): one Event per call, named `<object>.<hex time>`
// as upstream names them, in the object's namespace (`default` for a cluster-scoped object).
// Recording never fails the caller: an Event that cannot be written is logged instead.

import { nowTimestamp } from '../api/object.ts';
import type { Registry } from '../registry/registry.ts';

export interface InvolvedObject {
  apiVersion: string;
  kind: string;
  /** '' for a cluster-scoped object. */
  namespace: string;
  name: string;
  uid: string;
}

export interface RecordedEvent {
  involved: InvolvedObject;
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export class EventRecorder {
  constructor(
    private readonly registry: Registry,
    /** `source.component` and `reportingComponent` (upstream: the controller's name). */
    private readonly component: string,
    private readonly log: (message: string) => void = (m) => process.stderr.write(`${m}\n`),
  ) {}

  async record(e: RecordedEvent, now = new Date()): Promise<void> {
    const store = this.registry.storeFor('', 'events');
    const namespace = e.involved.namespace || 'default';
    const time = nowTimestamp(now);
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      // upstream: the object's name and the time in nanoseconds, in hex
      metadata: { name: `${e.involved.name}.${(BigInt(now.getTime()) * 1_000_000n).toString(16)}`, namespace },
      involvedObject: involvedObject(e.involved),
      type: e.type,
      reason: e.reason,
      message: e.message,
      source: { component: this.component },
      reportingComponent: this.component,
      reportingInstance: this.component,
      firstTimestamp: time,
      lastTimestamp: time,
      count: 1,
    };
    try {
      if (!store) throw new Error('events are not served');
      await store.create(namespace, event, { fieldManager: this.component });
    } catch (err) {
      this.log(`could not record event ${e.reason} on ${e.involved.kind} ${namespace}/${e.involved.name}: ${err instanceof Error ? err.message : String(err)}; ${e.message}`);
    }
  }
}

/** The object reference of an Event: no namespace for a cluster-scoped object. */
function involvedObject(o: InvolvedObject): Record<string, string> {
  const ref: Record<string, string> = { apiVersion: o.apiVersion, kind: o.kind, name: o.name, uid: o.uid };
  if (o.namespace) ref.namespace = o.namespace;
  return ref;
}
