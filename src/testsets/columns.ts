import { fromJsonbString, toJsonbString } from "../db/jsonb-text.ts";

/**
 * What a revision record keeps of its data columns: how many rows hold each (a jsonb object, so its keys
 * come back sorted) and their order (a jsonb array: the order of the uploaded file, then of creation).
 * Names are escaped for jsonb (jsonb-text.ts).
 */
export interface StoredColumns {
  columns?: Record<string, number>;
  column_order?: string[];
}

/**
 * How many rows of a revision hold each data column, in column order. Kept in the revision record so that a
 * delta updates it from the rows it touches and a diff compares columns without reading every row. A column
 * takes its place when first met (a row's keys in their order) and keeps it while any row holds it.
 */
export class ColumnCounts {
  // Insertion order is column order; a name placed ahead of its rows (`place`) may count 0.
  private readonly counts = new Map<string, number>();

  constructor(stored?: StoredColumns | null) {
    const counts = new Map(Object.entries(stored?.columns ?? {}));
    for (const name of stored?.column_order ?? []) {
      const n = counts.get(name);
      if (n === undefined) continue;
      this.counts.set(fromJsonbString(name), n);
      counts.delete(name);
    }
    // Records written before the order was kept: their (sorted) names follow.
    for (const [name, n] of counts) this.counts.set(fromJsonbString(name), n);
  }

  /** Puts names in this order ahead of any row (a rewrite that keeps the base revision's order). */
  place(names: Iterable<string>) {
    for (const name of names) if (!this.counts.has(name)) this.counts.set(name, 0);
  }

  add(data: Record<string, unknown>, times = 1) {
    for (const name of Object.keys(data)) {
      if (name === "testcase_dedup_id") continue;
      const n = (this.counts.get(name) ?? 0) + times;
      if (n > 0) this.counts.set(name, n);
      else this.counts.delete(name);
    }
  }

  /** The names some row holds, in column order. */
  names(): string[] {
    return [...this.counts].filter(([, n]) => n > 0).map(([name]) => name);
  }

  /** The counts for the revision record, names escaped for jsonb and sorted as jsonb would. */
  toJSON(): Record<string, number> {
    const stored = [...this.counts].filter(([, n]) => n > 0)
      .map(([name, n]): [string, number] => [toJsonbString(name), n]);
    return Object.fromEntries(stored.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /** Counts and order, to spread into the revision record (read back by the constructor). */
  stored(): Required<StoredColumns> {
    return { columns: this.toJSON(), column_order: this.names().map(toJsonbString) };
  }
}
