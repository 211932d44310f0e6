import type { Scope } from "../accounts/project-defaults.ts";
import type { Queryable } from "../db/database.ts";
import { json } from "../db/database.ts";
import { canonicalJson } from "./canonical-json.ts";
import type { ColumnCounts } from "./columns.ts";
import { DedupIds, testcaseId } from "./testcase-id.ts";

/** A row as clients send it (JSON commits, parsed files). */
export interface TestcaseInput {
  id?: string | null;
  data?: Record<string, unknown> | null;
  flags?: Record<string, unknown> | null;
  tags?: Record<string, unknown> | null;
  meta?: Record<string, unknown> | null;
}

export interface TestcaseRow {
  id: string;
  testset_id: string;
  data: Record<string, unknown>;
  flags: Record<string, unknown> | null;
  tags: Record<string, unknown> | null;
  meta: Record<string, unknown> | null;
  created_at: Date;
  created_by_id: string | null;
}

const BATCH = 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function testcaseRecord(row: TestcaseRow) {
  return {
    id: row.id,
    testset_id: row.testset_id,
    set_id: row.testset_id,
    data: row.data,
    flags: row.flags,
    tags: row.tags,
    meta: row.meta,
    created_at: new Date(row.created_at).toISOString(),
    created_by_id: row.created_by_id,
  };
}

/**
 * Writes the rows as immutable blobs (existing ones are left as they are) and returns their ids in
 * the order given. Rows are written in batches while the source is read, so a file is never held whole.
 * `columns`, when given, counts the data columns of the rows.
 */
export async function storeTestcases(
  tx: Queryable, scope: Scope, testsetId: string, rows: AsyncIterable<TestcaseInput> | Iterable<TestcaseInput>, columns?: ColumnCounts,
): Promise<string[]> {
  const dedup = new DedupIds();
  const ids: string[] = [];
  let batch: { id: string; claimed: string | null; data: Record<string, unknown>; flags: unknown; tags: unknown; meta: unknown }[] = [];
  const flush = async () => {
    if (!batch.length) return;
    await keepClaimedIds(tx, scope, testsetId, batch);
    await tx.query(
      `INSERT INTO testcases (project_id, id, testset_id, data, flags, tags, meta, created_by_id)
       SELECT $1, (r->>'id')::uuid, $2, r->'data', NULLIF(r->'flags', 'null'), NULLIF(r->'tags', 'null'), NULLIF(r->'meta', 'null'), $3
       FROM jsonb_array_elements($4::jsonb) r ON CONFLICT DO NOTHING`,
      [scope.projectId, testsetId, scope.userId, json(batch.map(({ claimed: _, ...r }) => r))],
    );
    for (const r of batch) ids.push(r.id);
    batch = [];
  };
  for await (const row of rows) {
    const data = { ...(row.data ?? {}) };
    if (data.testcase_dedup_id === undefined || data.testcase_dedup_id === null || data.testcase_dedup_id === "") {
      delete data.testcase_dedup_id;
      data.testcase_dedup_id = dedup.next(data);
    }
    columns?.add(data);
    const id = testcaseId(data, testsetId);
    batch.push({ id, claimed: row.id && row.id !== id ? row.id : null, data, flags: row.flags ?? null, tags: row.tags ?? null, meta: row.meta ?? null });
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  return ids;
}

/**
 * A row that names an id (`__id__`, or `id` in JSON) keeps it when that testcase of this testset holds
 * exactly this data (ids made with a salt, or by another system); an edited row gets a new id.
 */
async function keepClaimedIds(tx: Queryable, scope: Scope, testsetId: string, batch: { id: string; claimed: string | null; data: Record<string, unknown> }[]) {
  const claimed = batch.filter((r) => r.claimed && UUID.test(r.claimed));
  if (!claimed.length) return;
  const found = await tx.query<{ id: string; data: unknown }>(
    `SELECT id, data FROM testcases WHERE project_id = $1 AND testset_id = $2
       AND id IN (SELECT x::uuid FROM jsonb_array_elements_text($3::jsonb) x)`,
    [scope.projectId, testsetId, json(claimed.map((r) => r.claimed))],
  );
  const stored = new Map(found.map((r) => [r.id, canonicalJson(r.data)]));
  for (const r of claimed) if (stored.get(r.claimed!.toLowerCase()) === canonicalJson(r.data)) r.id = r.claimed!.toLowerCase();
}

/** Testcases by id, in the order of `ids`. */
export async function loadTestcases(db: Queryable, projectId: string, ids: string[]): Promise<TestcaseRow[]> {
  const out: TestcaseRow[] = [];
  for (let i = 0; i < ids.length; i += BATCH) {
    const slice = ids.slice(i, i + BATCH);
    const rows = await db.query<TestcaseRow>(
      "SELECT * FROM testcases WHERE project_id = $1 AND id IN (SELECT x::uuid FROM jsonb_array_elements_text($2::jsonb) x)",
      [projectId, json([...new Set(slice)])],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const id of slice) {
      const row = byId.get(id);
      if (row) out.push(row);
    }
  }
  return out;
}

/** Ids (in order) that are not testcases of this testset. */
export async function unknownTestcaseIds(db: Queryable, projectId: string, testsetId: string, ids: string[]): Promise<string[]> {
  const known = new Set<string>();
  for (let i = 0; i < ids.length; i += BATCH) {
    const rows = await db.query<{ id: string }>(
      "SELECT id FROM testcases WHERE project_id = $1 AND testset_id = $2 AND id IN (SELECT x::uuid FROM jsonb_array_elements_text($3::jsonb) x)",
      [projectId, testsetId, json(ids.slice(i, i + BATCH))],
    );
    for (const r of rows) known.add(r.id);
  }
  return ids.filter((id) => !known.has(id.toLowerCase()));
}
