import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import type { AppContext } from "../context.ts";
import { findTrace } from "./traces.ts";

export async function traceRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get("/traces/:trace_id", {
    schema: { tags: ["Traces"], summary: "Fetch the record of one invocation", params: Type.Object({ trace_id: Type.String({ pattern: "^[0-9a-f]{32}$" }) }) },
  }, async (req) => {
    await ctx.traces?.flush();
    return { count: 1, trace: await findTrace(ctx.db, req.scope, (req.params as any).trace_id) };
  });
}
