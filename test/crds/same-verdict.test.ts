// The generated CRD bodies close the loop (in process): every resource fixture of
// test/fixtures/objects goes through the built-in validator and, as a custom resource of its mirror
// CRD (out/crds, served by runtime/crd as the server serves it), through the CRD path. The verdicts
// (accepted or rejected) must agree, or the built-in errors the CRD path misses must all come from
// rules out/rules/crd-left-out.json records as left out of that body. Anything else is a bug.
import { afterAll, describe, expect, it } from 'vitest';
import type { FieldError } from '../../runtime/schema/types.ts';
import { attribute, builtinErrors, covers, crdErrors, fieldSegments, loadCases, mirrors, ruleName, type MirrorCase } from './mirror.ts';

const { cases, skipped } = loadCases();

type Outcome = 'same' | 'explained' | 'unexplained';
const outcomes = new Map<string, Outcome>();
const explainedBy = new Map<string, Set<string>>();

/** The verdict comparison of one case; a divergent verdict is explained only by recorded left-out rules. */
function compare(c: MirrorCase): { outcome: Outcome; builtin: FieldError[]; crd: FieldError[]; unexplained: FieldError[]; rules: string[] } {
  const builtin = builtinErrors(c);
  const { errors: crd } = crdErrors(c);
  if ((builtin.length > 0) === (crd.length > 0)) return { outcome: 'same', builtin, crd, unexplained: [], rules: [] };
  // The CRD path rejecting what the validator accepts is never explained: a body only ever leaves rules out.
  if (builtin.length === 0) return { outcome: 'unexplained', builtin, crd, unexplained: crd, rules: [] };
  const a = attribute(c, builtin);
  return { outcome: a.explained ? 'explained' : 'unexplained', builtin, crd, unexplained: a.unexplained, rules: a.rules.map((r) => ruleName(c.mirror, r)) };
}

describe('CRD bodies against the built-in validators, in process', () => {
  it('runs every resource fixture through both paths (only shape fixtures and known gaps stay out)', () => {
    expect(cases.length).toBeGreaterThan(200);
    expect(new Set(cases.map((c) => c.mirror)).size).toBe(mirrors.size);
    expect(skipped.every((s) => s.name.startsWith('volume/') || s.why.startsWith('a known gap'))).toBe(true);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    // The old object of an update must be one the CRD path stores.
    expect(crdErrors(c).oldErrors).toEqual([]);
    const r = compare(c);
    outcomes.set(c.name, r.outcome);
    if (r.outcome === 'explained') explainedBy.set(c.name, new Set(r.rules));
    expect(r.outcome, `unexplained divergence: ${JSON.stringify({ builtin: r.builtin, crd: r.crd, unexplained: r.unexplained })}`).not.toBe('unexplained');
  });

  afterAll(() => {
    const count = (o: Outcome): number => [...outcomes.values()].filter((x) => x === o).length;
    const rules = new Map<string, number>();
    for (const set of explainedBy.values()) for (const r of set) rules.set(r, (rules.get(r) ?? 0) + 1);
    const lines = [...rules].sort(([a], [b]) => (a < b ? -1 : 1)).map(([r, n]) => `  ${r}: ${n}`);
    console.log(`same-verdict: ${outcomes.size} fixtures (${skipped.length} shape fixtures skipped), same ${count('same')}, divergent-explained ${count('explained')}, unexplained ${count('unexplained')}\n${lines.join('\n')}`);
  });
});

describe('attribution helpers', () => {
  it.each([
    ['spec.drivers[0].name', ['spec', 'drivers', '[0]', 'name']],
    ['data[..data]', ['data', '[..data]']],
    ['metadata.annotations[cluster.io/service-account.name]', ['metadata', 'annotations', '[cluster.io/service-account.name]']],
    ['[]', []],
  ] as const)('segments of %s', (field, want) => expect(fieldSegments(field)).toEqual(want));

  it.each([
    ['.', '[]', true],
    ['.', 'spec.x', true],
    ['.webhooks[*].name', 'webhooks[3].name', true],
    ['.webhooks[*].name', 'webhooks[3]', false],
    ['.webhooks[*].name', 'webhooks[3].names', false],
    ['.spec.capacity[*]', 'spec.capacity[storage]', true],
    ['.data', 'binaryData[a]', false],
  ] as const)('%s covers %s: %s', (path, field, want) => expect(covers(path, field)).toBe(want));
});
