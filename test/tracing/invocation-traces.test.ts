import { describe, expect, it } from "vitest";
import { createAccount } from "../../src/accounts/accounts.ts";
import { jsonbText } from "../../src/db/jsonb-text.ts";
import { migrate } from "../../src/db/migrate.ts";
import { findTrace } from "../../src/traces/traces.ts";
import { emptyDatabase } from "../support/empty-database.ts";
import { startTestServer } from "../support/server.ts";
import { randomHex } from "./otlp-support.ts";

const NUL = "\u0000";

/** The per-invocation table as migrations 004 and 020 left it. */
const OLD_TABLE = `CREATE TABLE traces (
  trace_id text NOT NULL, project_id uuid NOT NULL REFERENCES projects (id), span_id text NOT NULL, refs json,
  inputs json, outputs json, status json NOT NULL, latency_ms double precision, usage json, spans json,
  created_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (project_id, trace_id))`;

describe("migration 028: invocation rows become spans", () => {
  it("moves each row to a root span and its recorded spans, repeated values put back, nothing lost", async () => {
    const empty = await emptyDatabase();
    try {
      const db = await empty.connect();
      await migrate(db);
      const account = await db.transaction((tx) =>
        createAccount(tx, { user: { email: `traces-${crypto.randomUUID()}@test.local` } }, false));
      const other = await db.transaction((tx) =>
        createAccount(tx, { user: { email: `traces-${crypto.randomUUID()}@test.local` } }, false));
      const scope = { projectId: account.project.id, userId: account.user.id };
      // Back to the schema before 028, with rows as the previous writer stored them.
      await db.query("DELETE FROM schema_migrations WHERE version = '028_invocation_spans'");
      await db.query("DROP VIEW traces");
      await db.query("DROP INDEX IF EXISTS spans_root_trace_hex");
      await db.query(OLD_TABLE);

      const [traceId, rootId, taskId, callId] = [randomHex(16), randomHex(8), randomHex(8), randomHex(8)];
      const inputs = { country: `Chile${NUL}`, nothing: null };
      const usage = { prompt_tokens: 20, completion_tokens: 4, total_tokens: 24 };
      const messages = [{ role: "user", content: "Capital of Chile?" }];
      const at = "2026-01-02T03:04:05.000Z";
      const span = (id: string, parent: string | null, name: string, type: string, rest: object) => ({
        span_id: id, parent_id: parent, name, type, start_time: at, end_time: at, duration_ms: 12,
        status: { code: "ok" }, ...rest,
      });
      const packed = [
        span(rootId, null, "svc:builtin:completion:v0", "workflow", {
          attributes: { parameters: { prompt: { messages } }, uri: "svc:builtin:completion:v0" },
          same: { inputs: "row.inputs", outputs: "row.outputs", usage: "row.usage" },
        }),
        span(taskId, rootId, "completion", "task", {
          attributes: { template_format: "curly", messages }, same: { outputs: "row.outputs" },
        }),
        span(callId, taskId, "openai.chat", "chat", {
          attributes: { provider: "openai", model: "gpt-4o-mini", settings: { temperature: 0 } },
          same: { prompt: "1.messages", outputs: "row.outputs", usage: "row.usage" },
        }),
      ];
      const refs = { application: { id: crypto.randomUUID(), slug: "capitals" }, environment: { slug: "production" } };
      const insert = (projectId: string, id: string, span: string, status: object, spans: unknown[], outputs: unknown) =>
        db.query(
          `INSERT INTO traces (trace_id, project_id, span_id, refs, inputs, outputs, status, latency_ms, usage, spans)
           VALUES ($1, $2, $3, $4, $5, $6, $7, 42.5, $8, $9)`,
          [id, projectId, span, jsonbText(refs), jsonbText(inputs), jsonbText(outputs), jsonbText(status),
            jsonbText(usage), jsonbText(spans)],
        );
      await insert(scope.projectId, traceId, rootId, { code: 200 }, packed, "Santiago");
      const failed = randomHex(16);
      await insert(scope.projectId, failed, randomHex(8), { code: 400, type: "invalid", message: "bad" }, [], null);
      const theirs = randomHex(16);
      await insert(other.project.id, theirs, randomHex(8), { code: 200 }, [], "theirs");

      expect(await migrate(db)).toEqual(["028_invocation_spans"]);
      const trace = (await findTrace(db, scope, traceId))!;
      expect(trace).toMatchObject({
        trace_id: traceId, span_id: rootId, inputs, outputs: "Santiago", status: { code: 200 }, latency_ms: 42.5, usage,
        references: { application: refs.application, environment: refs.environment },
      });
      const root = trace.spans["svc:builtin:completion:v0"];
      expect(root.attributes.ag.data.parameters).toEqual({ prompt: { messages } });
      expect(root.attributes.ag.data.internals).toEqual({ uri: "svc:builtin:completion:v0" });
      expect(root.references).toEqual([{ id: refs.application.id, slug: "capitals", attributes: { key: "application" } }]);
      const task = root.spans.completion;
      expect(task.attributes.ag.data).toEqual({
        outputs: "Santiago", internals: { template_format: "curly", messages },
      });
      const call = task.spans["openai.chat"];
      expect(call).toMatchObject({ span_type: "chat", span_kind: "SPAN_KIND_CLIENT", start_time: "2026-01-02T03:04:05.000000Z" });
      expect(call.attributes.ag.data).toEqual({
        inputs: { prompt: messages }, outputs: "Santiago",
        parameters: { temperature: 0, model: "gpt-4o-mini", provider: "openai" },
      });
      expect(call.attributes.ag.metrics.tokens.incremental).toEqual({ prompt: 20, completion: 4, total: 24 });

      const error = (await findTrace(db, scope, failed))!;
      expect(error).toMatchObject({ status: { code: 400, type: "invalid", message: "bad" }, outputs: null });
      expect(Object.values(error.spans)[0]).toMatchObject({ status_code: "STATUS_CODE_ERROR", status_message: "bad" });
      expect(await findTrace(db, scope, theirs)).toBeNull();
      // The view the evaluation queries join reads as the table did.
      const [row] = await db.query<Record<string, unknown>>(
        "SELECT outputs, latency_ms, usage, status FROM traces WHERE project_id = $1 AND trace_id = $2",
        [scope.projectId, traceId],
      );
      expect(row).toEqual({ outputs: "Santiago", latency_ms: 42.5, usage, status: { code: 200 } });
    } finally {
      await empty.dispose();
    }
  });
});

describe("migration 034: the view finds a root span through the spans' key", () => {
  it("by the trace's id in lowercase hex, as results name it; other texts find nothing, raising nothing", async () => {
    const server = await startTestServer();
    try {
      const p = await server.project();
      const traceId = randomHex(16);
      const span = { trace_id: traceId, span_id: randomHex(8), span_name: "root", start_time: "2026-01-02T03:04:05Z",
        end_time: "2026-01-02T03:04:06Z", attributes: { ag: { data: { outputs: "found" } } } };
      await p.ok("POST", "/tracing/spans/ingest", { spans: [span] }, 202);
      const find = async (id: string | null) => (await server.db.query<{ outputs: unknown }>(
        "SELECT outputs FROM traces WHERE project_id = $1 AND trace_uuid = trace_uuid($2)", [p.id, id],
      )).map((row) => row.outputs);
      expect(await find(traceId)).toEqual(["found"]);
      const dashed = traceId.replace(/^(.{8})(.{4})(.{4})(.{4})/, "$1-$2-$3-$4-");
      for (const other of [traceId.toUpperCase(), dashed, traceId.slice(1), "not a trace id", "", null]) {
        expect(await find(other)).toEqual([]);
      }
    } finally {
      await server.close();
    }
  });
});
