// The Event table's derived cells as upstream's printEvent computes them (Last Seen, First Seen,
// Count, Object, Source, Message).
import { describe, expect, it } from 'vitest';
import type { Obj } from '../api/object.ts';
import { eventCount, eventFirstSeen, eventLastSeen } from './event-seen.ts';
import { eventObject } from './event-object.ts';
import { eventSource } from './event-source.ts';
import { trimSpace } from './trim-space.ts';

const NOW = Date.parse('2026-01-01T12:00:00Z');

describe('Last Seen, First Seen and Count', () => {
  it.each([
    ['legacy: lastTimestamp and firstTimestamp', { firstTimestamp: '2026-01-01T11:00:00Z', lastTimestamp: '2026-01-01T11:59:00Z', count: 4 }, '60s', '60m', 4],
    ['no lastTimestamp: Last Seen is First Seen', { firstTimestamp: '2026-01-01T11:58:00Z' }, '2m', '2m', 1],
    ['new style: eventTime only, count 0 prints 1', { eventTime: '2026-01-01T11:59:30.123456Z', count: 0 }, '29s', '29s', 1],
    ['a series: its last observed time and count', { eventTime: '2026-01-01T11:00:00.000000Z', series: { count: 7, lastObservedTime: '2026-01-01T11:55:00.000000Z' }, count: 2 }, '5m', '60m', 7],
    ['a series without a time', { eventTime: '2026-01-01T11:00:00.000000Z', series: { count: 2 } }, '<unknown>', '60m', 2],
    ['no time at all', { firstTimestamp: null, eventTime: null }, '<unknown>', '<unknown>', 1],
    ['events.cluster.io: the deprecated fields', { deprecatedFirstTimestamp: '2026-01-01T11:00:00Z', deprecatedLastTimestamp: '2026-01-01T11:59:00Z', deprecatedCount: 4 }, '60s', '60m', 4],
    ['events.cluster.io: eventTime only', { eventTime: '2026-01-01T11:59:30.123456Z' }, '29s', '29s', 1],
  ] as const)('%s', (_name, obj, last, first, count) => {
    expect(eventLastSeen(undefined, obj as Obj, NOW)).toBe(last);
    expect(eventFirstSeen(undefined, obj as Obj, NOW)).toBe(first);
    expect(eventCount(undefined, obj as Obj, NOW)).toBe(count);
  });
});

describe('Object', () => {
  it.each([
    [{ kind: 'ConfigMap', name: 'cfg' }, 'configmap/cfg'],
    [{ kind: 'StorageClass' }, 'storageclass'],
    [undefined, ''],
  ] as const)('%j', (ref, want) => expect(eventObject(ref, {}, NOW)).toBe(want));
});

describe('Source (formatEventSource)', () => {
  it.each([
    [{ source: { component: 'kubelet', host: 'node-1' } }, 'kubelet, node-1'],
    [{ source: { component: 'kubelet' } }, 'kubelet'],
    [{ reportingComponent: 'cluster.io/ctl', reportingInstance: 'ctl-0' }, 'cluster.io/ctl, ctl-0'],
    [{ source: { component: 'a' }, reportingInstance: 'i' }, 'a, i'],
    [{}, ''],
  ] as const)('%j', (obj, want) => expect(eventSource((obj as Obj).source, obj as Obj, NOW)).toBe(want));
  it.each([
    [{ deprecatedSource: { component: 'kubelet', host: 'node-1' }, reportingController: 'cluster.io/ctl' }, 'kubelet, node-1'],
    [{ reportingController: 'cluster.io/ctl', reportingInstance: 'ctl-0' }, 'cluster.io/ctl, ctl-0'],
  ] as const)('events.cluster.io %j', (obj, want) => expect(eventSource((obj as Obj).deprecatedSource, obj as Obj, NOW)).toBe(want));
});

describe('Message', () => {
  it.each([
    ['  spaced \n', 'spaced'],
    ['inner  space kept', 'inner  space kept'],
  ])('%j', (v, want) => expect(trimSpace(v, {}, NOW)).toBe(want));
  it('leaves an absent message to whenAbsent', () => expect(trimSpace(undefined, {}, NOW)).toBeUndefined());
});
