import { fromJsonbString, toJsonbString } from "../db/jsonb-text.ts";

/** The column names of a revision record's counts (stored as jsonb holds them), as they are. */
export const columnNames = (stored: Record<string, number>): string[] => Object.keys(stored).map(fromJsonbString);

/**
 * How many rows of a revision hold each data column. Kept in the revision record so that a delta
 * updates it from the rows it touches and a diff compares columns without reading every row.
 */
export class ColumnCounts {
  private readonly counts: Map<string, number>;

  constructor(stored?: Record<string, number> | null) {
    this.counts = new Map(Object.entries(stored ?? {}).map(([name, n]) => [fromJsonbString(name), n]));
  }

  add(data: Record<string, unknown>, times = 1) {
    for (const name of Object.keys(data)) {
      if (name === "testcase_dedup_id") continue;
      const n = (this.counts.get(name) ?? 0) + times;
      if (n > 0) this.counts.set(name, n);
      else this.counts.delete(name);
    }
  }

  /** The counts for the revision record, names escaped for jsonb (read back by the constructor or `columnNames`). */
  toJSON(): Record<string, number> {
    const stored = [...this.counts].map(([name, n]): [string, number] => [toJsonbString(name), n]);
    return Object.fromEntries(stored.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}
