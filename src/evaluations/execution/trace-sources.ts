import type { Scope } from "../../accounts/scope.ts";
import type { Queryable } from "../../db/database.ts";
import { fromJsonb } from "../../db/jsonb-text.ts";
import { queries, type QueryData } from "../../kinds/queries.ts";
import { filteringSql, Params } from "../../tracing/query/filtering.ts";
import { timestampOf } from "../../tracing/query/timestamps.ts";
import { traceIdHex, traceIdToUuid } from "../../tracing/span.ts";
import { findRevision } from "../../versioning/revisions.ts";

/*
 * Traces as the source of an evaluation: a query revision's filter picks them from the span store, and each trace's
 * root span gives the scenario its inputs and the outputs the evaluators grade, as the reference's query steps do.
 */


/** One source item of a batch: a testcase, or a trace read as one (with the outputs its root span recorded). */
export interface SourceItem {
  id: string;
  data: unknown;
  outputs?: unknown;
}

/** A live evaluation reads invocation traces only: its query has a top-level `trace_type is invocation` condition. */
export function isInvocationQuery(data: QueryData | null | undefined): boolean {
  return (data?.filtering?.conditions ?? []).some((c) => {
    const condition = c as { field?: unknown; operator?: unknown; value?: unknown };
    return condition.field === "trace_type" && condition.operator === "is" && condition.value === "invocation";
  });
}

/** The pinned query revision's data (404 when it is not the caller's). */
export async function queryRevisionData(db: Queryable, scope: Scope, revisionId: string): Promise<QueryData> {
  return ((await findRevision(db, scope, queries, { id: revisionId })).data ?? {}) as QueryData;
}

/**
 * The traces a query picks, oldest first, at most `max`: its fixed `trace_ids`, or the traces with a span matching its
 * filter that started within the window (the query's own, narrowed by `window`). Ids in the reference's hex spelling.
 */
export async function matchingTraces(
  db: Queryable, scope: Scope, query: QueryData, max: number, window: { oldest?: string; newest?: string } = {},
): Promise<string[]> {
  if (query.trace_ids?.length) return [...new Set(query.trace_ids.flatMap(hexTraceId))].slice(0, max);
  const params = new Params();
  const where = [`project_id = ${params.add(scope.projectId, "uuid")}`, filteringSql(query.filtering ?? null, params)];
  const bounds = [
    [timestampOf(query.windowing?.oldest), window.oldest, ">="],
    [timestampOf(query.windowing?.newest), window.newest, "<"],
  ] as const;
  for (const [own, narrowed, op] of bounds) {
    for (const at of [own, narrowed]) if (at) where.push(`start_time ${op} ${params.add(at, "timestamptz")}`);
  }
  const limit = Math.min(max, query.windowing?.limit ?? max);
  const rows = await db.query<{ trace_id: string }>(
    `SELECT trace_id FROM spans WHERE ${where.join(" AND ")}
     GROUP BY trace_id ORDER BY min(start_time), trace_id LIMIT ${Math.max(0, limit)}`,
    params.values,
  );
  return rows.map((r) => traceIdHex(r.trace_id));
}

/** A trace id in the reference's hex spelling, or none when it is not one. */
function hexTraceId(id: string): string[] {
  try {
    return [traceIdHex(traceIdToUuid(id))];
  } catch {
    return [];
  }
}

/** Each trace as a source item: its root span's `ag.data.inputs` as the data, its `ag.data.outputs` as the outputs. */
export async function traceItems(db: Queryable, projectId: string, traceIds: string[]): Promise<SourceItem[]> {
  if (traceIds.length === 0) return [];
  const rows = await db.query<{ trace_id: string; inputs: unknown; outputs: unknown }>(
    `SELECT DISTINCT ON (trace_id) trace_id, attributes #> '{ag,data,inputs}' AS inputs,
       attributes #> '{ag,data,outputs}' AS outputs
     FROM spans WHERE project_id = $1 AND trace_id = ANY($2::uuid[])
     ORDER BY trace_id, (parent_id IS NULL) DESC, start_time`,
    [projectId, traceIds.map(traceIdToUuid)],
  );
  return rows.map((row) => {
    const r = fromJsonb(row);
    return { id: traceIdHex(r.trace_id), data: r.inputs ?? {}, outputs: r.outputs ?? null };
  });
}
