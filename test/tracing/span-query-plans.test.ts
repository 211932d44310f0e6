import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Queryable } from "../../src/db/database.ts";
import { querySpans, type SpanQuery } from "../../src/tracing/query/query-spans.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server.close());

/**
 * The plan of the statement `querySpans` sends for a project of `spans` root spans in the first hours of 2026 (a
 * customer each of 1,000), with the plans named in `settings` priced out.
 */
async function planOf(query: SpanQuery, settings: string[], spans = 0): Promise<string> {
  const p = await server.project();
  return server.db.transaction(async (tx) => {
    if (spans > 0) {
      await tx.query(
        `INSERT INTO spans (project_id, trace_id, span_id, trace_type, span_type, span_kind, span_name, start_time,
           end_time, status_code, attributes, labels)
         SELECT $1::uuid, gen_random_uuid(), gen_random_uuid(), 'invocation', 'workflow', 'SPAN_KIND_SERVER', 'root',
           '2026-01-01T00:00:00Z'::timestamptz + n * interval '1 second', '2026-01-01T00:00:00Z'::timestamptz
             + n * interval '1 second', 'STATUS_CODE_OK', labels, labels
         FROM generate_series(1, $2::int) n,
           jsonb_build_object('ag', jsonb_build_object('meta', jsonb_build_object('customer', 'c-' || n % 1000)))
             AS labels`,
        [p.id, spans],
      );
      await tx.query("ANALYZE spans");
    }
    for (const setting of settings) await tx.query(`SET LOCAL ${setting}`);
    let plan = "";
    const explaining: Queryable = {
      async query<T>(sql: string, params?: unknown[]) {
        const rows = await tx.query<{ "QUERY PLAN": string }>(`EXPLAIN ${sql}`, params);
        plan = rows.map((row) => row["QUERY PLAN"]).join("\n");
        return [] as T[];
      },
    };
    await querySpans(explaining, { projectId: p.id, userId: null }, query);
    return plan;
  });
}

const day = { oldest: "2026-01-01T00:00:00Z", newest: "2026-01-02T00:00:00Z", limit: 100 };

describe("span query plans", () => {
  it("finds an attribute equality through the labels index, one on inputs or outputs without it", async () => {
    const equal = (key: string) => ({ conditions: [{ field: "attributes", key, operator: "is", value: "c-42" }] });
    // Without plain index scans: a scan of the time index that stops at the page's limit is priced from statistics
    // that the other projects' spans in a shared database sway; what is checked is that this index serves the filter.
    const settings = ["enable_seqscan = off", "enable_indexscan = off"];
    const plan = await planOf({ focus: "span", filtering: equal("ag.meta.customer"), windowing: day }, settings, 5000);
    expect(plan).toContain("Bitmap Index Scan on spans_labels");
    const onInputs = { focus: "span" as const, filtering: equal("ag.data.inputs.customer"), windowing: day };
    const inputs = await planOf(onInputs, settings);
    expect(inputs).not.toContain("spans_labels");
    expect(inputs).toContain("attributes @>");
  });

  it("finds spans by their references through the references index", async () => {
    const references = [{ slug: "capitals" }, { version: "3" }];
    const filtering = { conditions: [{ field: "references", operator: "in", value: references }] };
    const plan = await planOf({ focus: "span", filtering, windowing: day }, ["enable_seqscan = off",
      "enable_indexscan = off"], 5000);
    expect(plan).toContain("Bitmap Index Scan on spans_references");
  });

  it("reads the newest spans of a window in the time index's order, without sorting them", async () => {
    const plan = await planOf({ focus: "span", filtering: null, windowing: day }, ["enable_seqscan = off",
      "enable_bitmapscan = off", "enable_sort = off"], 5000);
    expect(plan).toContain("Index Scan Backward using spans_project_start_time");
    // Ties of start time are put in order of span id (an incremental sort), never the whole window.
    expect(plan).not.toMatch(/(^|->\s+)Sort\b/m);
  });
});
