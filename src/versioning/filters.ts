import { json } from "../db/database.ts";
import type { Kind } from "./kind.ts";
import type { Conditions } from "./sql.ts";

export interface Reference {
  id?: string | null;
  slug?: string | null;
  version?: string | number | null;
}

export interface MetadataFilter {
  flags?: Record<string, boolean | null> | null;
  tags?: Record<string, unknown> | null;
  meta?: Record<string, unknown> | null;
  name?: string | null;
  slug?: string | null;
  /** Part of the name or of the slug, in any case. */
  search?: string | null;
  slugs?: string[] | null;
}

/** Rows of the caller's project and of this kind (its family, and the flags that mark the kind). */
export function ofKind(where: Conditions, alias: string, projectId: string, kind: Kind): Conditions {
  return where
    .add(`${alias}.project_id = ?::uuid`, projectId)
    .add(`${alias}.kind = ?`, kind.family)
    .add(`${alias}.flags @> ?::jsonb`, json(kind.flags));
}

/** Flags match as given (a false flag also matches rows that never set it); tags and meta are subset matches. */
export function matchMetadata(where: Conditions, alias: string, f: MetadataFilter | null | undefined): void {
  if (!f) return;
  for (const [flag, value] of Object.entries(f.flags ?? {})) {
    if (value === true) where.add(`${alias}.flags @> ?::jsonb`, json({ [flag]: true }));
    if (value === false) where.add(`NOT (${alias}.flags @> ?::jsonb)`, json({ [flag]: true }));
  }
  if (f.tags) where.add(`${alias}.tags @> ?::jsonb`, json(f.tags));
  if (f.meta) where.add(`${alias}.meta @> ?::jsonb`, json(f.meta));
  if (f.name) where.add(`${alias}.name ILIKE ?`, `%${f.name.replace(/[\\%_]/g, (c) => "\\" + c)}%`);
  if (f.slug) where.add(`${alias}.slug = ?`, f.slug);
  if (f.search) {
    const part = `%${f.search.replace(/[\\%_]/g, (c) => "\\" + c)}%`;
    where.add(`(${alias}.name ILIKE ? OR ${alias}.slug ILIKE ?)`, part, part);
  }
  if (f.slugs?.length) where.add(`${alias}.slug = ANY(?::text[])`, f.slugs);
}

/** Rows named by any of the references (by id or by slug). */
export function matchReferences(where: Conditions, alias: string, refs: Reference[] | null | undefined): void {
  if (!refs?.length) return;
  const ids = refs.map((r) => r.id).filter((x): x is string => !!x);
  const slugs = refs.map((r) => r.slug).filter((x): x is string => !!x);
  where.add(`(${alias}.id = ANY(?::uuid[]) OR ${alias}.slug = ANY(?::text[]))`, ids, slugs);
}
