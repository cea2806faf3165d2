// Go's sort.SliceStable (insertion sort on blocks of 20, then in-place SymMerge), step for step.
// Strategic merge patch sorts with upstream's comparator, which is not a strict order when an
// item is missing from the order list; the result then depends on the algorithm, so this is
// Go's own: O(n log n) comparisons, O(n log² n) swaps, recursion depth O(log n).

/** Sorts `items` in place, as sort.SliceStable(items, less) does in Go. */
export function goSliceStable<T>(items: T[], less: (a: T, b: T) => boolean): void {
  const n = items.length;
  let blockSize = 20;
  let a = 0;
  let b = blockSize;
  while (b <= n) {
    insertionSort(items, less, a, b);
    a = b;
    b += blockSize;
  }
  insertionSort(items, less, a, n);
  while (blockSize < n) {
    a = 0;
    b = 2 * blockSize;
    while (b <= n) {
      symMerge(items, less, a, a + blockSize, b);
      a = b;
      b += 2 * blockSize;
    }
    const m = a + blockSize;
    if (m < n) symMerge(items, less, a, m, n);
    blockSize *= 2;
  }
}

function swap<T>(d: T[], i: number, j: number): void {
  const t = d[i];
  d[i] = d[j];
  d[j] = t;
}

function insertionSort<T>(d: T[], less: (a: T, b: T) => boolean, a: number, b: number): void {
  for (let i = a + 1; i < b; i++) {
    for (let j = i; j > a && less(d[j], d[j - 1]); j--) swap(d, j, j - 1);
  }
}

function symMerge<T>(d: T[], less: (a: T, b: T) => boolean, a: number, m: number, b: number): void {
  if (m - a === 1) {
    let i = m;
    let j = b;
    while (i < j) {
      const h = (i + j) >>> 1;
      if (less(d[h], d[a])) i = h + 1;
      else j = h;
    }
    for (let k = a; k < i - 1; k++) swap(d, k, k + 1);
    return;
  }
  if (b - m === 1) {
    let i = a;
    let j = m;
    while (i < j) {
      const h = (i + j) >>> 1;
      if (!less(d[m], d[h])) i = h + 1;
      else j = h;
    }
    for (let k = m; k > i; k--) swap(d, k, k - 1);
    return;
  }
  const mid = (a + b) >>> 1;
  const n = mid + m;
  let start: number;
  let r: number;
  if (m > mid) {
    start = n - b;
    r = mid;
  } else {
    start = a;
    r = m;
  }
  const p = n - 1;
  while (start < r) {
    const c = (start + r) >>> 1;
    if (!less(d[p - c], d[c])) start = c + 1;
    else r = c;
  }
  const end = n - start;
  if (start < m && m < end) rotate(d, start, m, end);
  if (a < start && start < mid) symMerge(d, less, a, start, mid);
  if (mid < end && end < b) symMerge(d, less, mid, end, b);
}

function swapRange<T>(d: T[], a: number, b: number, n: number): void {
  for (let i = 0; i < n; i++) swap(d, a + i, b + i);
}

function rotate<T>(d: T[], a: number, m: number, b: number): void {
  let i = m - a;
  let j = b - m;
  while (i !== j) {
    if (i > j) {
      swapRange(d, m - i, m, j);
      i -= j;
    } else {
      swapRange(d, m - i, m + j - i, i);
      j -= i;
    }
  }
  swapRange(d, m - i, m, i);
}
