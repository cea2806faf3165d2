// YAML answers read back by a YAML 1.1 reader: every string go-yaml v2 (kubectl, client-go) would
// resolve to another type is quoted, as a value and as a key; plain strings stay plain.
// test/e2e/client-fidelity.test.ts reads the same table back with the real kubectl.

import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { toYaml } from './yaml-answer.ts';
import { YAML_SCALARS } from '../../test/fixtures/yaml-1.1-scalars.ts';

describe('YAML answers for YAML 1.1 readers', () => {
  it.each(YAML_SCALARS)('%j (go-yaml v2 reads it unquoted as %s)', (scalar, readAs) => {
    const text = toYaml({ data: { value: scalar }, keys: { [scalar]: 'v' } });
    // what a YAML 1.1 reader gets back is the object sent
    expect(parse(text, { version: '1.1' })).toEqual({ data: { value: scalar }, keys: { [scalar]: 'v' } });
    const lines = text.split('\n');
    const valueLine = lines.find((l) => l.startsWith('  value: ')) as string;
    const keyLine = lines[lines.indexOf('keys:') + 1];
    const quoted = readAs !== 'string';
    expect(valueLine.slice('  value: '.length)).toBe(quoted ? JSON.stringify(scalar) : scalar);
    expect(keyLine).toBe(quoted ? `  ${JSON.stringify(scalar)}: v` : `  ${scalar}: v`);
  });

  it('keeps numbers, booleans and null typed', () => {
    expect(toYaml({ n: 1, f: 1.5, b: false, z: null })).toBe('"n": 1\nf: 1.5\nb: false\nz: null\n');
  });
});
