// The write-time matchCondition compile check: every fixture of
// test/fixtures/objects/validatingwebhookconfiguration carries the strategy's errors as
// `strategyWant` (none when absent), beside the validator's `want` that test/validators checks.
import { describe, expect, it } from 'vitest';
import type { Obj } from '../../api/object.ts';
import { strategyFor } from './index.ts';
import { strategyFixtures, strategyVerdict } from './strategy-fixtures.ts';
import { matchConditionsUnchanged } from './validatingwebhookconfiguration.ts';

const fixtures = strategyFixtures('validatingwebhookconfiguration');

const strategy = strategyFor('ValidatingWebhookConfiguration');

describe('ValidatingWebhookConfiguration strategy against the fixtures', () => {
  it('has fixtures that the strategy refuses, on create and on update', () => {
    expect(fixtures.filter(([, f]) => (f.strategyWant ?? []).length > 0 && !f.old).length).toBeGreaterThanOrEqual(3);
    expect(fixtures.some(([, f]) => (f.strategyWant ?? []).length > 0 && f.old)).toBe(true);
  });
  it.each(fixtures)('%s', (_name, f) => {
    expect(strategyVerdict(strategy, f)).toEqual(f.strategyWant ?? []);
  });
});

const hook = (conditions?: { name: string; expression: string }[]): Obj => (conditions ? { name: 'a.b.c', matchConditions: conditions } : { name: 'a.b.c' });
const cfg = (...webhooks: Obj[]): Obj => ({ webhooks });
const bad = { name: 'x', expression: '1 +' };
const good = { name: 'y', expression: 'true' };

describe('matchConditionsUnchanged (upstream ignoreValidatingWebhookMatchConditions)', () => {
  it.each([
    ['identical', cfg(hook([bad])), cfg(hook([bad])), true],
    ['no conditions either side', cfg(hook()), cfg(hook()), true],
    ['a condition added', cfg(hook([bad, good])), cfg(hook([bad])), false],
    ['conditions reordered', cfg(hook([good, bad])), cfg(hook([bad, good])), false],
    ['a webhook added', cfg(hook([bad]), hook()), cfg(hook([bad])), false],
    ['conditions moved to another webhook', cfg(hook(), hook([bad])), cfg(hook([bad]), hook()), false],
  ] as const)('%s', (_name, obj, old, want) => {
    expect(matchConditionsUnchanged(obj, old)).toBe(want);
  });
});
