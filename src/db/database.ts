/**
 * The storage boundary. One SQL dialect (PostgreSQL) behind two drivers: node-postgres for a server,
 * PGlite (WASM PostgreSQL) embedded in the process. Everything above this file sees only these types.
 */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /**
   * Bulk load: runs `COPY … FROM STDIN` (text, csv or binary as `sql` says) with `data` as its input,
   * a batch already serialised. Rows a query would send as parameters load an order of magnitude
   * faster this way. Both drivers have it; it is optional so a Queryable can be a plain wrapper.
   */
  copyFrom?(sql: string, data: (string | Buffer)[]): Promise<void>;
  /**
   * About how many bytes of COPY text one load should carry. A server streams a load, so large loads
   * cost it nothing; the embedded database copies each into its own memory first, so its loads are
   * kept small (a 1,000,000-row upload then peaks at ~0.9 GB instead of ~1.15 GB).
   */
  readonly copyBytes?: number;
}

export interface Database extends Queryable {
  readonly driver: "pglite" | "postgres";
  /** Both drivers have bulk loads (see `Queryable.copyFrom`). */
  copyFrom(sql: string, data: (string | Buffer)[]): Promise<void>;
  /** Runs `work` in one transaction: committed if it resolves, rolled back if it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Statements and transactions that hold or wait for the embedded database's one backend (none on a server):
   * long background work lets them go first.
   */
  pending?(): number;
  /** Runs `work` on one dedicated connection (session-level locks, LISTEN). */
  session<T>(work: (conn: Queryable) => Promise<T>): Promise<T>;
  /**
   * Calls `onMessage` for each NOTIFY on `channel` until the returned function is called. On a server,
   * a lost connection is retried for as long as it takes; `events` hears of the loss and the return,
   * since notifications sent in between are never delivered.
   */
  listen(
    channel: string, onMessage: (payload: string) => void, events?: { lost?(error: Error): void; restored?(): void },
  ): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
  close(): Promise<void>;
}

/** COPY input parts as one buffer (strings joined first: one encoding instead of one per part; one buffer as it is). */
export function joinCopyData(parts: (string | Buffer)[]): Buffer {
  if (parts.length === 1 && typeof parts[0] !== "string") return parts[0]!;
  if (parts.every((p) => typeof p === "string")) return Buffer.from(parts.join(""));
  return Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : p)));
}

const COPY_ESCAPES = /[\\\t\n\r]/g;
const COPY_SPECIAL = /[\\\t\n\r]/;
const COPY_ESCAPE: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/** One field in COPY's text format: `\N` for null, the text with backslashes, tabs and line breaks escaped. */
export const copyField = (text: string | null): string =>
  // Most fields need no escape: a test finds that three times faster than a replace that changes nothing.
  text === null ? "\\N" : COPY_SPECIAL.test(text) ? text.replace(COPY_ESCAPES, (c) => COPY_ESCAPE[c]!) : text;

/** A JSON value as a query parameter for a `jsonb` column (drivers would turn JS arrays into SQL arrays). */
export const json = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value));

/**
 * COPY that gives way to a unique violation: the load is rolled back to a savepoint and false is
 * returned, so the caller can load the same rows with `INSERT … ON CONFLICT` instead. Most bulk loads
 * hit no stored row, and plain COPY into the table costs half of staging the rows first.
 * Runs inside a transaction.
 */
export async function copyUnlessConflict(tx: Queryable, sql: string, data: (string | Buffer)[]): Promise<boolean> {
  if (!tx.copyFrom) return false;
  await tx.query("SAVEPOINT copy_unless_conflict");
  try {
    await tx.copyFrom(sql, data);
  } catch (error) {
    if ((error as { code?: string }).code !== "23505") throw error;
    await tx.query("ROLLBACK TO SAVEPOINT copy_unless_conflict");
    return false;
  }
  await tx.query("RELEASE SAVEPOINT copy_unless_conflict");
  return true;
}
