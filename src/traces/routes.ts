import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import type { AppContext } from "../context.ts";
import { documentationOnly } from "../http/openapi.ts";
import { FreeObject, Nullable } from "../schema-parts.ts";
import { findTrace } from "./traces.ts";

const Open = { additionalProperties: true } as const;
const TraceAnswer = Type.Object({
  count: Type.Integer(),
  trace: Type.Object({
    trace_id: Type.String(), span_id: Type.String(), references: Nullable(FreeObject), inputs: Type.Unknown(), outputs: Type.Unknown(),
    status: Type.Object({ code: Type.Integer(), type: Type.Optional(Type.String()), message: Type.Optional(Type.String()) }, Open),
    latency_ms: Type.Number(), usage: Type.Unknown(), spans: Type.Array(Type.Unknown()), created_at: Type.Unknown(),
  }, Open),
}, Open);

export async function traceRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get("/traces/:trace_id", {
    schema: { tags: ["Traces"], summary: "Fetch the record of one invocation", params: Type.Object({ trace_id: Type.String({ pattern: "^[0-9a-f]{32}$" }) }) },
    config: documentationOnly({ response: { 200: TraceAnswer } }),
  }, async (req) => {
    await ctx.traces?.flush();
    return { count: 1, trace: await findTrace(ctx.db, req.scope, (req.params as any).trace_id) };
  });
}
