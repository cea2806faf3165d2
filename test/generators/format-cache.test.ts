// The format worker's memo (generators/format-cache.ts): an output is found again by its whole input
// in the next run, only with the same libraries, and the file keeps this run's entries first.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileFormatCache } from '../../generators/format-cache.ts';
import { formatPool } from '../../generators/format-pool.ts';

const repo = join(import.meta.dirname, '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'clusterspec-format-cache-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let n = 0;
const freshRoot = (): string => {
  const root = join(scratch, `root-${n++}`);
  mkdirSync(root);
  return root;
};

describe('the format cache', () => {
  it('finds an output by its input in the next run, and nothing for another input', () => {
    const root = freshRoot();
    const first = FileFormatCache.open(root, repo);
    expect(first.empty).toBe(true);
    first.set(first.keyOf('format\nconst a=1'), 'const a = 1;\n');
    first.save();
    const second = FileFormatCache.open(root, repo);
    expect(second.empty).toBe(false);
    expect(second.get(second.keyOf('format\nconst a=1'))).toBe('const a = 1;\n');
    expect(second.get(second.keyOf('format\nconst a=2'))).toBeUndefined();
  });

  it('keeps nothing for another toolchain (other libraries installed)', () => {
    const root = freshRoot();
    const cache = FileFormatCache.open(root, repo);
    cache.set(cache.keyOf('x'), 'y');
    cache.save();
    const other = join(scratch, 'toolchain');
    mkdirSync(join(other, 'node_modules', 'prettier'), { recursive: true });
    writeFileSync(join(other, 'node_modules', 'prettier', 'package.json'), '{"name":"prettier","version":"0.0.1"}\n');
    const elsewhere = FileFormatCache.open(root, other);
    expect(elsewhere.empty).toBe(true);
    expect(elsewhere.get(elsewhere.keyOf('x'))).toBeUndefined();
  });

  it('reads a damaged file as an empty cache', () => {
    const root = freshRoot();
    mkdirSync(join(root, 'node_modules', '.cache', 'clusterspec'), { recursive: true });
    writeFileSync(join(root, 'node_modules', '.cache', 'clusterspec', 'format.json'), '{"salt": "clusterspec-format-cache 1", "entries": [[');
    expect(FileFormatCache.open(root, repo).empty).toBe(true);
  });

  it('gives the pool the remembered output without formatting, and remembers what it formats', async () => {
    const root = freshRoot();
    const cache = FileFormatCache.open(root, repo);
    const pool = formatPool();
    // a remembered output is returned as it is: prettier would never print this one
    cache.set(cache.keyOf('format\nconst  b  =  2'), 'remembered\n');
    pool.useMemo(cache);
    try {
      expect(await pool.format('const  b  =  2')).toBe('remembered\n');
      expect(await pool.format('const  c  =  3')).toBe('const c = 3;\n');
      expect(cache.get(cache.keyOf('format\nconst  c  =  3'))).toBe('const c = 3;\n');
    } finally {
      pool.useMemo(undefined);
    }
  });
});
