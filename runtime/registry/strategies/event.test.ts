// The core v1 Event strategy: upstream's legacy event validation, checked against every fixture of
// test/fixtures/objects/event (each carries the strategy's errors as `strategyWant`, none when
// absent, beside the validator's `want` that test/validators checks), and the `source` field selector.
import { describe, expect, it } from 'vitest';
import type { Obj } from '../../api/object.ts';
import { strategyFor } from './index.ts';
import { strategyFixtures, strategyVerdict } from './strategy-fixtures.ts';

const fixtures = strategyFixtures('event');

const strategy = strategyFor('Event');

describe('Event strategy against the fixtures', () => {
  it('has fixtures the strategy refuses, on create and on update, and fixtures it accepts', () => {
    expect(fixtures.filter(([, f]) => (f.strategyWant ?? []).length > 0 && !f.old).length).toBeGreaterThanOrEqual(4);
    expect(fixtures.some(([, f]) => (f.strategyWant ?? []).length > 0 && f.old)).toBe(true);
    expect(fixtures.filter(([name]) => name.startsWith('valid-')).length).toBeGreaterThanOrEqual(4);
  });
  it.each(fixtures)('%s', (_name, f) => {
    expect(strategyVerdict(strategy, f)).toEqual(f.strategyWant ?? []);
  });
});

describe('the source field selector (upstream EventToSelectableFields)', () => {
  it.each([
    ['source.component', { source: { component: 'kubelet', host: 'n1' }, reportingComponent: 'cluster.io/x' }, 'kubelet'],
    ['reportingComponent when source.component is empty', { source: { component: '' }, reportingComponent: 'cluster.io/x' }, 'cluster.io/x'],
    ['reportingComponent without a source', { reportingComponent: 'cluster.io/x' }, 'cluster.io/x'],
    ['empty when neither is set', {}, ''],
  ] as const)('%s', (_name, obj, want) => {
    expect(strategy.fieldValues!(obj as Obj)).toEqual({ source: want });
  });
});

describe('involvedObject absent (a struct without omitempty upstream)', () => {
  it.each([
    ['create', (o: Obj) => strategy.prepareForCreate!(o)],
    ['update', (o: Obj) => strategy.prepareForUpdate!(o, {})],
  ] as const)('is stored as {} on %s; a given one is kept', (_name, prepare) => {
    const absent: Obj = { metadata: { name: 'e' } };
    prepare(absent);
    expect(absent.involvedObject).toEqual({});
    const given: Obj = { involvedObject: { kind: 'ConfigMap', name: 'c' } };
    prepare(given);
    expect(given.involvedObject).toEqual({ kind: 'ConfigMap', name: 'c' });
  });
});
