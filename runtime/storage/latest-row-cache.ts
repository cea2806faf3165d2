// The latest row of recently written or read keys, in memory, so that a read at the latest revision
// (every GET by name) and the existence check of a write skip a SQL query. Only correct because one
// process writes the database (it is opened with an exclusive lock): the writer updates the cache
// after each committed transaction.
//
// Bounded by generations rather than per-entry eviction: entries go into the current Map; when it
// holds half the capacity it becomes the previous one and the older previous is dropped whole.
// (Deleting entries one by one from a full JS Map, as an LRU does, degrades V8's hash table: a
// delete + set per operation cost 26 µs once the cache had seen 70,000 writes.)

export interface LatestRow {
  /** The row's revision (the key's mod revision, or the revision of its delete). */
  id: number;
  /** 1 when the latest row is a tombstone. */
  deleted: number;
  create_revision: number;
  value: string | null;
}

export class LatestRowCache {
  private current = new Map<string, LatestRow>();
  private previous = new Map<string, LatestRow>();
  private readonly generationSize: number;

  /** Holds at most `capacity` rows, and at least the last `capacity / 2` keys set. */
  constructor(capacity: number) {
    this.generationSize = Math.floor(capacity / 2);
  }

  get(key: string): LatestRow | undefined {
    // the current generation first: a key set again since the rotation has its newer row there
    return this.current.get(key) ?? this.previous.get(key);
  }

  set(key: string, row: LatestRow): void {
    if (this.generationSize <= 0) return;
    this.current.set(key, row);
    if (this.current.size >= this.generationSize) {
      this.previous = this.current;
      this.current = new Map();
    }
  }
}
