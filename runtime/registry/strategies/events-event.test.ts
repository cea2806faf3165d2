// The events.cluster.io Event strategy: upstream's ValidateEventCreate/ValidateEventUpdate for the
// events API, checked against every fixture of test/fixtures/objects/eventsv1event (each carries the
// strategy's errors as `strategyWant`, none when absent); the `source` field selector; Go's rendering
// of times in immutable-field errors; and the shared storage with core v1 Events.
import { describe, expect, it } from 'vitest';
import type { Obj } from '../../api/object.ts';
import { goTimeString } from './events-event.ts';
import { strategyFor } from './index.ts';
import { strategyFixtures, strategyVerdict } from './strategy-fixtures.ts';

const fixtures = strategyFixtures('eventsv1event');

const strategy = strategyFor('Event', {}, 'events.cluster.io');

describe('events.cluster.io Event strategy against the fixtures', () => {
  it('is not the core v1 strategy, and both create on update', () => {
    expect(strategy).not.toBe(strategyFor('Event'));
    expect(strategy.allowCreateOnUpdate).toBe(true);
    expect(strategyFor('Event').allowCreateOnUpdate).toBe(true);
    expect(strategy.storedWith).toMatchObject({ group: '', plural: 'events', apiVersion: 'v1' });
  });
  it('has fixtures the strategy refuses, on create and on update, and fixtures it accepts', () => {
    expect(fixtures.filter(([, f]) => (f.strategyWant ?? []).length > 0 && !f.old).length).toBeGreaterThanOrEqual(3);
    expect(fixtures.filter(([, f]) => (f.strategyWant ?? []).length > 0 && f.old).length).toBeGreaterThanOrEqual(2);
    expect(fixtures.filter(([name]) => name.startsWith('valid-')).length).toBeGreaterThanOrEqual(3);
  });
  it.each(fixtures)('%s', (_name, f) => {
    expect(strategyVerdict(strategy, f)).toEqual(f.strategyWant ?? []);
  });
});

describe('the source field selector (upstream EventToSelectableFields on the internal object)', () => {
  it.each([
    ['deprecatedSource.component', { deprecatedSource: { component: 'kubelet', host: 'n1' }, reportingController: 'cluster.io/x' }, 'kubelet'],
    ['reportingController when deprecatedSource.component is empty', { deprecatedSource: { component: '' }, reportingController: 'cluster.io/x' }, 'cluster.io/x'],
    ['empty when neither is set', {}, ''],
  ] as const)('%s', (_name, obj, want) => {
    expect(strategy.fieldValues!(obj as Obj)).toEqual({ source: want });
  });
});

describe("Go's time.Time String of an RFC 3339 time", () => {
  it.each([
    ['2026-01-01T10:00:00Z', '2026-01-01 10:00:00 +0000 UTC'],
    ['2026-01-01T10:00:00.000000Z', '2026-01-01 10:00:00 +0000 UTC'],
    ['2026-01-01T10:00:01.500000Z', '2026-01-01 10:00:01.5 +0000 UTC'],
    ['2026-01-01T12:00:00.123456+02:00', '2026-01-01 10:00:00.123456 +0000 UTC'],
    [undefined, '0001-01-01 00:00:00 +0000 UTC'],
    ['not a time', '0001-01-01 00:00:00 +0000 UTC'],
  ] as const)('%s', (v, want) => expect(goTimeString(v)).toBe(want));
});
