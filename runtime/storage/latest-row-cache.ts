// The latest row of recently used keys, in memory, so that a read at the latest revision (every
// GET by name) and the existence check of a write skip a SQL query. Only correct because one
// process writes the database (it is opened with an exclusive lock): the writer updates the
// cache after each committed transaction. Bounded, least recently used out first.

export interface LatestRow {
  /** The row's revision (the key's mod revision, or the revision of its delete). */
  id: number;
  /** 1 when the latest row is a tombstone. */
  deleted: number;
  create_revision: number;
  value: string | null;
}

export class LatestRowCache {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  private readonly rows = new Map<string, LatestRow>();

  constructor(private readonly capacity: number) {}

  get(key: string): LatestRow | undefined {
    const row = this.rows.get(key);
    if (row !== undefined) {
      this.rows.delete(key);
      this.rows.set(key, row);
    }
    return row;
  }

  set(key: string, row: LatestRow): void {
    if (this.capacity <= 0) return;
    this.rows.delete(key);
    this.rows.set(key, row);
    if (this.rows.size > this.capacity) this.rows.delete(this.rows.keys().next().value as string);
  }

  get size(): number {
    return this.rows.size;
  }
}
