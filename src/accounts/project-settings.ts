import type { Queryable } from "../db/database.ts";
import type { Scope } from "./scope.ts";

/** Longest span retention a project may set: a hundred years. */
export const MAX_SPAN_RETENTION_DAYS = 36_500;

/** A project's settings: null follows the server's default. */
export interface ProjectSettings {
  /** Days the project's spans are kept; 0 keeps them for good (src/tracing/retention.ts). */
  span_retention_days: number | null;
}

/** The settings of the caller's project. */
export async function projectSettings(db: Queryable, scope: Scope): Promise<ProjectSettings> {
  const [row] = await db.query<ProjectSettings>("SELECT span_retention_days FROM projects WHERE id = $1", [
    scope.projectId,
  ]);
  return { span_retention_days: row?.span_retention_days ?? null };
}

/** Changes the settings named in `change` (the others stay); the settings after it. */
export async function changeProjectSettings(
  db: Queryable, scope: Scope, change: Partial<ProjectSettings>,
): Promise<ProjectSettings> {
  if ("span_retention_days" in change) {
    await db.query("UPDATE projects SET span_retention_days = $2, updated_at = now() WHERE id = $1", [
      scope.projectId, change.span_retention_days ?? null,
    ]);
  }
  return projectSettings(db, scope);
}
