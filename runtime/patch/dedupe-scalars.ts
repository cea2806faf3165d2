// Upstream strategic merge patch's deduplicateScalars, which removes each repeat by moving the
// list's last item into its place. The order it leaves is observable (an empty
// `$setElementOrder` keeps it), so this gives exactly that order, in O(n log n) instead of O(n²).

/** The result of upstream's in-place deduplicateScalars on `s` (the input is not modified). */
export function deduplicateScalars(s: readonly unknown[]): unknown[] {
  if (new Set(s).size === s.length) return [...s]; // no repeats: upstream changes nothing
  const out = [...s];
  // Per value, a min-heap of positions that held it; entries go stale as items move and are
  // checked when popped. Values compare with `===` (Map keys: SameValueZero; JSON has no NaN).
  const positions = new Map<unknown, number[]>();
  for (let p = 0; p < out.length; p++) {
    const h = positions.get(out[p]);
    if (h === undefined) positions.set(out[p], [p]);
    else h.push(p); // ascending: already a heap
  }
  let length = out.length - 1;
  for (let i = 0; i < length; i++) {
    const x = out[i];
    const heap = positions.get(x)!;
    // upstream scans j = i+1..length and, at each repeat of x, moves out[length] to j and looks at j again:
    // the repeats are met in ascending position, which the heap gives.
    for (;;) {
      while (heap.length > 0 && (heap[0] <= i || heap[0] > length || out[heap[0]] !== x)) heapPop(heap);
      if (heap.length === 0) break;
      const j = heapPop(heap);
      const moved = out[length];
      out[j] = moved;
      length--;
      if (j <= length) heapPush(positions.get(moved)!, j);
    }
  }
  out.length = length + 1;
  return out;
}

function heapPush(h: number[], v: number): void {
  h.push(v);
  let i = h.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (h[parent] <= v) break;
    h[i] = h[parent];
    i = parent;
  }
  h[i] = v;
}

function heapPop(h: number[]): number {
  const top = h[0];
  const last = h.pop()!;
  if (h.length > 0) {
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= h.length) break;
      const r = l + 1;
      const c = r < h.length && h[r] < h[l] ? r : l;
      if (h[c] >= last) break;
      h[i] = h[c];
      i = c;
    }
    h[i] = last;
  }
  return top;
}
