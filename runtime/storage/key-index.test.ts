import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compareKeys, keyAfter } from './interface.ts';
import { SortedKeyIndex } from './key-index.ts';
import { MemoryStorage } from './memory.ts';
import { SqliteStorage } from './sqlite.ts';

function rng(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
}

const ALPHABET = ['a', 'b', 'z', '0', '~', 'é', '\uffff', '😀', '/'];

describe('compareKeys', () => {
  // ASCII only (native comparison), one side or both with code units from U+D800 (the loop).
  const KEYS = ['', 'a', 'ab', 'b', '/r/a', '\u00e9', '\ud7ff', '\ue000', '\uffff', '\u{1f600}', 'a\u{1f600}', 'a\uffff', 'a\ue000z', '\u{10ffff}', 'a\u{1f600}b'];
  const sign = (n: number): number => (n < 0 ? -1 : n > 0 ? 1 : 0);
  it.each(KEYS.flatMap((a) => KEYS.map((b) => [a, b])))('orders %j and %j as their UTF-8 bytes', (a, b) => {
    expect(sign(compareKeys(a, b))).toBe(sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
  });
});

describe('SortedKeyIndex', () => {
  it('counts and walks ranges as a sorted set does, through inserts and removals', () => {
    const r = rng(7);
    const idx = new SortedKeyIndex();
    const set = new Set<string>();
    const word = (): string => Array.from({ length: 1 + Math.floor(r() * 4) }, () => ALPHABET[Math.floor(r() * ALPHABET.length)]).join('');
    for (let i = 0; i < 6000; i++) {
      const k = word();
      if (r() < 0.7) {
        idx.add(k);
        set.add(k);
      } else {
        idx.remove(k);
        set.delete(k);
      }
      if (i % 97 === 0) {
        const a = word();
        const b = word();
        const [lo, hi] = compareKeys(a, b) <= 0 ? [a, b] : [b, a];
        const want = [...set].filter((k) => compareKeys(k, lo) >= 0 && compareKeys(k, hi) < 0).length;
        expect(idx.count(lo, hi)).toBe(want);
        expect(idx.count(lo, undefined)).toBe([...set].filter((k) => compareKeys(k, lo) >= 0).length);
        expect(idx.size).toBe(set.size);
        expect([...idx.from(lo)]).toEqual([...set].filter((k) => compareKeys(k, lo) >= 0).sort(compareKeys));
      }
    }
    const sorted = [...set].sort(compareKeys);
    const built = SortedKeyIndex.fromSorted(sorted);
    expect(built.count('', undefined)).toBe(sorted.length);
    expect(built.rank(sorted[10])).toBe(10);
  });
});

describe.each(['memory', 'sqlite'] as const)('%s: remaining after a page', (kind) => {
  it('matches the keys left in the range, at the latest and at a past revision', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'key-index-'));
    const s = kind === 'memory' ? new MemoryStorage({ autoCompaction: false }) : new SqliteStorage({ dataDir: dir, autoCompaction: false });
    try {
      const r = rng(11);
      const live = new Set<string>();
      const name = (): string => `/core/configmaps/ns${Math.floor(r() * 3)}/k${Math.floor(r() * 300)}${r() < 0.1 ? 'é' : ''}`;
      const check = async (prefix: string, revision?: number, expected?: Set<string>): Promise<void> => {
        const keys = [...(expected ?? live)].filter((k) => k.startsWith(prefix)).sort(compareKeys);
        for (const limit of [1, 7, 50]) {
          let startKey: string | undefined;
          let seen = 0;
          for (;;) {
            const page = await s.list(prefix, { limit, startKey, revision });
            seen += page.items.length;
            expect(page.remaining).toBe(keys.length - seen);
            expect(page.more).toBe(keys.length - seen > 0);
            if (!page.more) break;
            startKey = keyAfter(page.items[page.items.length - 1].key);
            revision = page.revision;
          }
          expect(seen).toBe(keys.length);
        }
      };
      let past: { rev: number; keys: Set<string> } | undefined;
      for (let round = 0; round < 6; round++) {
        const ops: Promise<unknown>[] = [];
        for (let i = 0; i < 150; i++) {
          const k = name();
          if (live.has(k)) {
            if (r() < 0.5) {
              live.delete(k);
              ops.push(s.delete(k));
            } else {
              await Promise.all(ops.splice(0));
              ops.push(s.update(k, '{"u":1}', (await s.get(k)).kv!.modRevision));
            }
          } else {
            live.add(k);
            ops.push(s.create(k, '{}'));
          }
          if (ops.length >= 20) await Promise.all(ops.splice(0));
        }
        await Promise.all(ops);
        if (round === 2) past = { rev: await s.currentRevision(), keys: new Set(live) };
        await check('/core/configmaps/ns1/');
        await check('/core/configmaps/');
      }
      if (past) await check('/core/configmaps/', past.rev, past.keys);
    } finally {
      await s.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
