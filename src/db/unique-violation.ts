import { conflict } from "../errors.ts";

/**
 * Runs a statement; a unique violation it raises becomes a 409 saying `detail`, so the client reads which
 * slug is taken rather than the database's constraint name. With `constraint`, only that one is told so.
 */
export async function conflictOnDuplicate<T>(statement: Promise<T>, detail: string, constraint?: string): Promise<T> {
  try {
    return await statement;
  } catch (error) {
    const e = error as { code?: unknown; constraint?: unknown };
    if (e.code === "23505" && (constraint === undefined || e.constraint === constraint)) throw conflict(detail);
    throw error;
  }
}
