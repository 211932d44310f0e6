import { findProjectBySlug } from "../accounts/accounts.ts";
import type { Queryable } from "../db/database.ts";
import { UsageError } from "./command.ts";

/** The project with that slug, or a usage error naming the projects the database has. */
export async function projectBySlug(db: Queryable, slug: string | undefined, where: string) {
  const wanted = slug?.trim();
  if (!wanted) throw new UsageError("--project <slug> is required");
  const project = await findProjectBySlug(db, wanted);
  if (project) return project;
  const rows = await db.query<{ slug: string }>("SELECT slug FROM projects ORDER BY created_at LIMIT 20");
  const known = rows.map((p) => p.slug);
  const hint = known.length > 0
    ? `; projects there: ${known.join(", ")}`
    : "; it has no project yet (start the server once to create \"default\")";
  throw new UsageError(`Unknown project "${wanted}" in ${where}${hint}`);
}
