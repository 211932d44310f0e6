import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import type { AppContext } from "../context.ts";
import { documentationOnly } from "../http/openapi.ts";
import { FreeObject, Nullable } from "../schema-parts.ts";
import { findTrace, findTraces } from "./traces.ts";

const Open = { additionalProperties: true } as const;
const TraceRecord = Type.Object({
  trace_id: Type.String(), span_id: Type.String(), references: Nullable(FreeObject), inputs: Type.Unknown(), outputs: Type.Unknown(),
  status: Type.Object({ code: Type.Integer(), type: Type.Optional(Type.String()), message: Type.Optional(Type.String()) }, Open),
  latency_ms: Type.Number(), usage: Type.Unknown(), spans: Type.Array(Type.Unknown()), created_at: Type.Unknown(),
}, Open);
const TraceAnswer = Type.Object({ count: Type.Integer(), trace: TraceRecord }, Open);
const TraceId = Type.String({ pattern: "^[0-9a-f]{32}$" });
/** Most traces one query reads. */
const TRACES_PER_QUERY = 200;
const TracesQuery = Type.Object({ trace_ids: Type.Array(TraceId, { minItems: 1, maxItems: TRACES_PER_QUERY }) }, { additionalProperties: false });

export async function traceRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get("/traces/:trace_id", {
    schema: { tags: ["Traces"], summary: "Fetch the record of one invocation", params: Type.Object({ trace_id: TraceId }) },
    config: documentationOnly({ response: { 200: TraceAnswer } }),
  }, async (req) => {
    await ctx.traces?.flush();
    return { count: 1, trace: await findTrace(ctx.db, req.scope, (req.params as any).trace_id) };
  });
  app.post("/traces/query", {
    schema: {
      tags: ["Traces"], body: TracesQuery,
      summary: "Fetch the records of several invocations by trace id (Tessera)",
      description: `At most ${TRACES_PER_QUERY} ids; ids this project does not hold are left out of the answer.`,
    },
    config: documentationOnly({ response: { 200: Type.Object({ count: Type.Integer(), traces: Type.Array(TraceRecord) }, Open) } }),
  }, async (req) => {
    await ctx.traces?.flush();
    const traces = await findTraces(ctx.db, req.scope, (req.body as { trace_ids: string[] }).trace_ids);
    return { count: traces.length, traces };
  });
}
