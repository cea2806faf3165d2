// Large YAML bodies decoded on the worker thread (yaml-offload.ts) give decodeYaml's answer for the
// same text exactly: the value and duplicate keys, or the same DecodeError (what and where).

import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { DecodeError, type DecodeFailure } from './decode-error.ts';
import { decodeYaml } from './decode.ts';
import { offloadYaml, takeOffloaded } from './yaml-offload.ts';

const bigMap = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`key-${i}`, `value ${i}`]));
const padding = `# ${'x'.repeat(25_000)}\n`;

/** `want`: the DecodeError's failure, `duplicates` the duplicate keys found, or a value without duplicates. */
const cases: { name: string; text: string; want: DecodeFailure | 'duplicates' | 'value' }[] = [
  { name: 'a ConfigMap of 3,000 keys', text: stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: bigMap }), want: 'value' },
  { name: 'duplicate keys (go-yaml wording, by line)', text: `${padding}a: 1\nb: 2\na: 3\n`, want: 'duplicates' },
  { name: 'a syntax error (no source quoted)', text: `${padding}a: "unterminated\n`, want: 'syntax' },
  { name: 'an alias bomb', text: `${padding}a: &a [x, x, x, x, x, x, x, x, x, x]\n${Array.from({ length: 120 }, (_, i) => `k${i}: [*a, *a]`).join('\n')}\n`, want: 'aliases' },
  { name: '.inf (no JSON number)', text: `${padding}a: .inf\n`, want: 'number' },
];

type Outcome = { value: ReturnType<typeof decodeYaml> } | { error: { format: string; failure: DecodeFailure; message: string } };

function outcome(f: () => ReturnType<typeof decodeYaml>): Outcome {
  try {
    return { value: f() };
  } catch (e) {
    if (e instanceof DecodeError) return { error: { format: e.format, failure: e.failure, message: e.message } };
    throw e;
  }
}

function kindOf(o: Outcome): string {
  if ('error' in o) return o.error.failure;
  return o.value.duplicates.length ? 'duplicates' : 'value';
}

describe('YAML decoded on the worker thread', () => {
  it.each(cases)('$name: the same answer as on the request thread', async ({ text, want }) => {
    const inline = outcome(() => decodeYaml(text));
    expect(kindOf(inline)).toBe(want);
    await offloadYaml(text);
    expect(takeOffloaded(text), 'a result waits for this text').toBeDefined();
    await offloadYaml(text);
    expect(outcome(() => decodeYaml(text))).toEqual(inline);
    expect(takeOffloaded(text), 'taken once').toBeUndefined();
  }, 30_000);
});
