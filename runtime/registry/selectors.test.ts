import { describe, expect, it } from 'vitest';
import { checkFieldSelector, objectFields, parseFieldSelector } from './field-selector.ts';
import { parseLabelSelector } from './label-selector.ts';

const L = { app: 'web', tier: 'front', n: '5' };

describe('label selector', () => {
  const cases: [string, { selector: string; labels: Record<string, string>; want: boolean }][] = [
    ['empty selects all', { selector: '', labels: {}, want: true }],
    ['equals', { selector: 'app=web', labels: L, want: true }],
    ['double equals', { selector: 'app==web', labels: L, want: true }],
    ['equals miss', { selector: 'app=db', labels: L, want: false }],
    ['not equals', { selector: 'app!=db', labels: L, want: true }],
    ['not equals matches a missing key', { selector: 'missing!=x', labels: L, want: true }],
    ['in', { selector: 'tier in (front, back)', labels: L, want: true }],
    ['in miss', { selector: 'tier in (back)', labels: L, want: false }],
    ['notin', { selector: 'tier notin (back)', labels: L, want: true }],
    ['notin matches a missing key', { selector: 'missing notin (a)', labels: L, want: true }],
    ['exists', { selector: 'app', labels: L, want: true }],
    ['exists miss', { selector: 'missing', labels: L, want: false }],
    ['does not exist', { selector: '!missing', labels: L, want: true }],
    ['does not exist miss', { selector: '!app', labels: L, want: false }],
    ['greater than', { selector: 'n>4', labels: L, want: true }],
    ['less than', { selector: 'n<5', labels: L, want: false }],
    ['gt on a non-integer label', { selector: 'app>1', labels: L, want: false }],
    ['terms are ANDed', { selector: 'app=web,tier=back', labels: L, want: false }],
    ['prefixed key', { selector: 'example.com/role=x', labels: { 'example.com/role': 'x' }, want: true }],
    ['empty value', { selector: 'app=', labels: { app: '' }, want: true }],
  ];
  it.each(cases)('%s', (_name, { selector, labels, want }) => {
    expect(parseLabelSelector(selector).matches(labels)).toBe(want);
  });

  const errors: [string, { selector: string; message: RegExp }][] = [
    ['missing operator value set', { selector: 'a in b', message: /expected: '\('/ }],
    ['bad operator', { selector: 'a (b)', message: /found '\(', expected: in, notin, =, ==, !=, gt, lt/ }],
    ['bad key', { selector: '-a=b', message: /unable to parse requirement/ }],
    ['gt non-integer', { selector: 'a>b', message: /for 'Gt', 'Lt' operators, the value must be an integer/ }],
    ['bad value', { selector: 'a=b c', message: /found 'c'/ }],
    ['trailing comma', { selector: 'a=b,', message: /found ''/ }],
  ];
  it.each(errors)('rejects %s', (_name, { selector, message }) => {
    expect(() => parseLabelSelector(selector)).toThrow(message);
  });
});

describe('field selector', () => {
  const obj = { metadata: { name: 'a', namespace: 'ns1' }, type: 'Opaque', status: { phase: 'Active' } };
  const cases: [string, { selector: string; extra: string[]; want: boolean }][] = [
    ['name', { selector: 'metadata.name=a', extra: [], want: true }],
    ['name double equals', { selector: 'metadata.name==a', extra: [], want: true }],
    ['name not equals', { selector: 'metadata.name!=a', extra: [], want: false }],
    ['namespace', { selector: 'metadata.namespace=ns1', extra: [], want: true }],
    ['extra field', { selector: 'type=Opaque', extra: ['type'], want: true }],
    ['nested extra field', { selector: 'status.phase=Terminating', extra: ['status.phase'], want: false }],
    ['ANDed', { selector: 'metadata.name=a,metadata.namespace=ns2', extra: [], want: false }],
    ['escaped comma', { selector: 'metadata.name=a\\,b', extra: [], want: false }],
  ];
  it.each(cases)('%s', (_name, { selector, extra, want }) => {
    const sel = parseFieldSelector(selector);
    checkFieldSelector(sel, extra);
    expect(sel.matches(objectFields(obj, extra))).toBe(want);
  });

  it.each([
    ['a type without its own table', [], 'spec.x=1', '"spec.x" is not a known field selector: only "metadata.name", "metadata.namespace"'],
    ['a type with its own table', ['type'], 'spec.x=1', 'field label not supported: spec.x'],
  ] as const)('rejects an unknown field on %s', (_n, extra, selector, message) => {
    expect(() => checkFieldSelector(parseFieldSelector(selector), extra)).toThrow(message);
  });

  it('rejects a term without an operator', () => {
    expect(() => parseFieldSelector('metadata.name')).toThrow("invalid selector: 'metadata.name'; can't understand 'metadata.name'");
  });
});

// Selectors come from the URL (at most 16 KiB of headers and request line): the worst inputs of that
// size parse and match a LIST of 10,000 objects in linear time (no user pattern, no backtracking).
describe('selectors on hostile input', () => {
  const values = Array.from({ length: 2_700 }, (_, i) => `v${i}`);
  // [what, selector, labels of object i, objects matched]
  const cases: [string, string, (i: number) => Record<string, string>, number][] = [
    ['in with 2,700 values', `k in (${values.join(',')})`, (i) => ({ k: `v${i}` }), 2_700],
    ['notin with 2,700 values', `k notin (${values.join(',')})`, (i) => ({ k: `v${i}` }), 7_300],
    ['1,000 requirements', Array.from({ length: 1_000 }, (_, i) => `k${i}!=x`).join(','), () => ({ k1: 'y' }), 10_000],
  ];
  it.each(cases)('%s', (_what, selector, labels, want) => {
    const t = performance.now();
    const sel = parseLabelSelector(selector);
    let matched = 0;
    for (let i = 0; i < 10_000; i++) if (sel.matches(labels(i))) matched++;
    expect(matched).toBe(want);
    expect(performance.now() - t).toBeLessThan(100);
  });

  it('a long key or value is refused without backtracking', () => {
    const t = performance.now();
    expect(() => parseLabelSelector('a'.repeat(16_000) + '-')).toThrow(/name part must be no more than 63 characters/);
    expect(() => parseLabelSelector('k=' + 'a'.repeat(16_000) + '-')).toThrow(/must be no more than 63 characters/);
    expect(parseFieldSelector('metadata.name=' + '\\,'.repeat(8_000)).requirements[0].value).toBe(','.repeat(8_000));
    expect(performance.now() - t).toBeLessThan(100);
  });
});
