// goTrimSpace against Go's strings.TrimSpace: Unicode spaces trimmed, a byte-order mark kept.
import { describe, expect, it } from 'vitest';
import { goTrimSpace } from './go-strings.ts';

describe('goTrimSpace (Go strings.TrimSpace)', () => {
  it.each([
    ['  a b  ', 'a b'],
    ['\t\n\v\f\r a \u0085\u00a0', 'a'],
    ['\u3000x\u2029', 'x'],
    ['\ufeffx', '\ufeffx'], // not a space in Go
    ['   ', ''],
  ])('%j', (s, want) => expect(goTrimSpace(s)).toBe(want));
});
