// A sorted set of keys in byte-wise order: the live keys at the latest revision (counting a range in
// O(log n) for a LIST page's `remaining` instead of scanning it), and the memory backend's list of
// every key it holds (walked in order by a range read). A sorted list of bounded chunks: insert and
// remove touch one chunk (O(√n) at worst) where one flat array would move every later key;
// rank(k) is a binary search over the chunks' first keys, a sum of the sizes before it and a
// binary search inside one chunk.

import { compareKeys, lowerBound } from './interface.ts';

const MAX_CHUNK = 1024;

export class SortedKeyIndex {
  private chunks: string[][] = [];
  private total = 0;

  /** Builds from keys already in byte-wise order (no duplicates). */
  static fromSorted(keys: readonly string[]): SortedKeyIndex {
    const idx = new SortedKeyIndex();
    for (let i = 0; i < keys.length; i += MAX_CHUNK / 2) idx.chunks.push(keys.slice(i, i + MAX_CHUNK / 2));
    idx.total = keys.length;
    return idx;
  }

  get size(): number {
    return this.total;
  }

  /** Adds a key (no-op when present). */
  add(key: string): void {
    if (this.chunks.length === 0) {
      this.chunks.push([key]);
      this.total = 1;
      return;
    }
    const c = this.chunkFor(key);
    const chunk = this.chunks[c];
    const i = lowerBound(chunk, key);
    if (i < chunk.length && chunk[i] === key) return;
    chunk.splice(i, 0, key);
    this.total++;
    if (chunk.length > MAX_CHUNK) this.chunks.splice(c, 1, chunk.slice(0, chunk.length >> 1), chunk.slice(chunk.length >> 1));
  }

  /** Removes a key (no-op when absent). */
  remove(key: string): void {
    if (this.chunks.length === 0) return;
    const c = this.chunkFor(key);
    const chunk = this.chunks[c];
    const i = lowerBound(chunk, key);
    if (i >= chunk.length || chunk[i] !== key) return;
    chunk.splice(i, 1);
    this.total--;
    if (chunk.length === 0) this.chunks.splice(c, 1);
  }

  /** The keys >= `start`, in order (the index must not change while this runs). */
  *from(start: string): Generator<string> {
    if (this.chunks.length === 0) return;
    let c = this.chunkFor(start);
    let i = lowerBound(this.chunks[c], start);
    for (; c < this.chunks.length; c++, i = 0) {
      const chunk = this.chunks[c];
      for (; i < chunk.length; i++) yield chunk[i];
    }
  }

  /** How many keys are < `key`. */
  rank(key: string): number {
    if (this.chunks.length === 0) return 0;
    const c = this.chunkFor(key);
    let n = 0;
    for (let j = 0; j < c; j++) n += this.chunks[j].length;
    return n + lowerBound(this.chunks[c], key);
  }

  /** Keys k with start <= k < end (end undefined: no upper bound). */
  count(start: string, end: string | undefined): number {
    const hi = end === undefined ? this.total : this.rank(end);
    return Math.max(0, hi - this.rank(start));
  }

  /** The last chunk whose first key is <= key (0 when key precedes every chunk). */
  private chunkFor(key: string): number {
    let lo = 0;
    let hi = this.chunks.length; // first chunk whose first key is > key
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareKeys(this.chunks[mid][0], key) <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? 0 : lo - 1;
  }
}
