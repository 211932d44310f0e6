/** Rows as stored; records (what clients read) are made from them in records.ts. */
interface Lifecycle {
  id: string;
  project_id: string;
  kind: string;
  slug: string;
  name: string | null;
  description: string | null;
  flags: Record<string, unknown>;
  tags: Record<string, unknown> | null;
  meta: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date | null;
  deleted_at: Date | null;
  created_by_id: string | null;
  updated_by_id: string | null;
  deleted_by_id: string | null;
}

export type ArtifactRow = Lifecycle;

export interface VariantRow extends Lifecycle {
  artifact_id: string;
  artifact_slug: string;
}

export interface RevisionRow extends Lifecycle {
  artifact_id: string;
  variant_id: string;
  artifact_slug: string;
  variant_slug: string;
  version: number;
  parent_id: string | null;
  message: string | null;
  author: string | null;
  date: Date;
  data: unknown;
}

export const VARIANT_COLUMNS = "v.*, a.slug AS artifact_slug";
export const REVISION_COLUMNS = "r.*, a.slug AS artifact_slug, v.slug AS variant_slug";
export const REVISION_FROM = "revisions r JOIN variants v ON v.id = r.variant_id JOIN artifacts a ON a.id = r.artifact_id";
export const VARIANT_FROM = "variants v JOIN artifacts a ON a.id = v.artifact_id";
