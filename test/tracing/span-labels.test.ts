import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../../src/accounts/accounts.ts";
import { migrate } from "../../src/db/migrate.ts";
import { querySpans } from "../../src/tracing/query/query-spans.ts";
import { LABEL_CHARS, labelsHold, spanLabels } from "../../src/tracing/span-labels.ts";
import { emptyDatabase } from "../support/empty-database.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server.close());

const long = "x".repeat(LABEL_CHARS + 1);
const attributes = [
  {
    ag: {
      type: { trace: "invocation", span: "chat" },
      meta: { customer: "c-1", note: long, tags: ["a", long, { k: long }] },
      data: { inputs: { country: "France" }, outputs: "Paris" }, metrics: { duration: { cumulative: 12 } },
      references: { application: { id: "0190-app" } },
    },
    gen_ai: { system: "openai", prompt: long },
    list: [1, "two", [3]],
  },
  { ag: { type: { trace: "invocation", span: "task" }, data: { inputs: { c: "c-1" } } }, empty: {} },
  // A key a client may send that a plain assignment would take for the object's prototype.
  JSON.parse('{"__proto__": {"polluted": "yes"}, "ag": {"meta": {"customer": "c-2"}}}'),
];
const conditions = [
  { ag: { meta: { customer: "c-1" } } }, { ag: { meta: { tags: ["a"] } } }, { ag: { meta: { tags: [{}] } } },
  { ag: { type: { span: "chat" } } }, { ag: { references: { application: { id: "0190-app" } } } },
  { gen_ai: { system: "openai" } }, { gen_ai: { prompt: long } }, { ag: { meta: { note: long } } },
  { ag: { data: { inputs: { country: "France" } } } }, { ag: { metrics: { duration: { cumulative: 12 } } } },
  { list: ["two"] }, { list: [[3]] }, { empty: {} }, { ag: { meta: {} } }, { ag: "invocation" }, { nothing: 1 },
  JSON.parse('{"__proto__": {"polluted": "yes"}}'),
];

describe("span labels", () => {
  it("keep every key but inputs, outputs, metrics, references and long strings", () => {
    expect(spanLabels(attributes[0]!)).toEqual({
      ag: { type: { trace: "invocation", span: "chat" }, meta: { customer: "c-1", tags: ["a", {}] } },
      gen_ai: { system: "openai" },
      list: [1, "two", [3]],
    });
    expect(spanLabels(null)).toBeNull();
  });

  it("hold a containment exactly when the attributes do, for every condition they can answer", async () => {
    const answerable = conditions.filter(labelsHold);
    expect(conditions.length - answerable.length).toBe(6);
    for (const attrs of attributes) {
      for (const condition of answerable) {
        const [row] = await server.db.query<{ whole: boolean; labelled: boolean }>(
          "SELECT $1::jsonb @> $3::jsonb AS whole, $2::jsonb @> $3::jsonb AS labelled",
          [JSON.stringify(attrs), JSON.stringify(spanLabels(attrs)), JSON.stringify(condition)],
        );
        expect(row!.labelled, `${JSON.stringify(condition)} in ${JSON.stringify(attrs)}`).toBe(row!.whole);
      }
    }
  });
});

describe("migration 036: spans stored before get their labels", () => {
  it("labels every span from its attributes, and an equality finds them through the new index", async () => {
    const empty = await emptyDatabase();
    try {
      const db = await empty.connect();
      await migrate(db);
      const account = await db.transaction((tx) =>
        createAccount(tx, { user: { email: `labels-${crypto.randomUUID()}@test.local` } }, false));
      // Back to the schema before 036, with spans as the previous writer stored them.
      await db.query("DELETE FROM schema_migrations WHERE version = '036_span_labels'");
      await db.query("DROP INDEX spans_labels");
      await db.query("ALTER TABLE spans DROP COLUMN labels");
      await db.query("CREATE INDEX spans_attributes ON spans USING gin (attributes jsonb_path_ops)");
      await db.query("DROP INDEX spans_project_start_time");
      await db.query("CREATE INDEX spans_project_start_time ON spans (project_id, start_time DESC)");
      const stored = [attributes[0], attributes[1], { ag: ["not", "an", "object"] }, null];
      await db.query(
        `INSERT INTO spans (project_id, trace_id, span_id, trace_type, span_type, span_kind, span_name, start_time,
           end_time, status_code, attributes)
         SELECT $1::uuid, gen_random_uuid(), gen_random_uuid(), 'invocation', 'chat', 'SPAN_KIND_CLIENT', 'span-' || n,
           '2026-01-01T00:00:00Z'::timestamptz + n * interval '1 minute', '2026-01-01T00:00:00Z'::timestamptz
             + n * interval '1 minute', 'STATUS_CODE_OK', (($2::jsonb) -> (n - 1)::int)
         FROM generate_series(1, 4) n`,
        [account.project.id, JSON.stringify(stored)],
      );

      expect(await migrate(db)).toEqual(["036_span_labels"]);
      const labels = await db.query<{ labels: unknown }>(
        "SELECT labels FROM spans WHERE project_id = $1 ORDER BY span_name", [account.project.id]);
      // The attributes without ag.data, ag.metrics and ag.references; their long strings stay.
      type Attributes = (typeof attributes)[number];
      const without = ({ ag: { data: _d, metrics: _m, references: _r, ...ag }, ...rest }: Attributes) =>
        ({ ...rest, ag });
      expect(labels.map((row) => row.labels)).toEqual([
        without(attributes[0]!), without(attributes[1]!), { ag: ["not", "an", "object"] }, null,
      ]);
      const indexes = await db.query<{ indexdef: string }>(
        `SELECT indexdef FROM pg_indexes
         WHERE schemaname = current_schema() AND tablename = 'spans'
           AND indexname IN ('spans_labels', 'spans_project_start_time')`);
      expect(indexes.map((row) => row.indexdef.replace(/^.* USING /, "")).sort()).toEqual([
        "btree (project_id, start_time)", "gin (labels jsonb_path_ops)"]);
      const scope = { projectId: account.project.id, userId: null };
      const found = await querySpans(db, scope, { focus: "span", windowing: { limit: 10 },
        filtering: { conditions: [{ field: "attributes", key: "ag.meta.customer", operator: "is", value: "c-1" }] } });
      expect(found.spans.map((span) => span.span_name)).toEqual(["span-1"]);
    } finally {
      await empty.dispose();
    }
  });
});
