// Generation is deterministic: two runs give the same bytes, and the committed out/ matches.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generate } from '../../generators/index.ts';
import { checkOut } from '../../generators/write-out.ts';

const root = join(import.meta.dirname, '..', '..');

describe('generation', () => {
  it('gives the same bytes twice and matches the committed out/', async () => {
    const first = await generate(root);
    const second = await generate(root);
    expect(second).toEqual(first);
    expect(checkOut(join(root, 'out'), first)).toEqual({ changed: [], missing: [], extra: [] });
  });
});
