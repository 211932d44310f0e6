import { Type } from "typebox";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.ts";
import { pendingMigrations } from "../db/migrate.ts";
import { databaseUnavailable, RETRY_AFTER_SECONDS } from "../db/unavailable.ts";

const tags = ["Health"];
const Status = Type.Object({ status: Type.String() });
const Detail = Type.Object({ detail: Type.String() });

/**
 * `GET /api/health`: liveness, answered without the database (restart the process only if this fails).
 * `GET /api/health/ready`: readiness, 503 while the database is unreachable or has migrations pending
 * (send this process no traffic until it answers 200).
 */
export async function healthRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get("/health", { schema: { tags, summary: "Liveness", security: [], response: { 200: Status } } }, async () => ({ status: "ok" }));
  app.get("/health/ready", {
    schema: {
      tags,
      summary: "Readiness: the database answers and every migration is applied",
      security: [],
      response: { 200: Status, 503: Detail },
    },
  }, async (_request, reply) => {
    let pending: string[];
    try {
      pending = await pendingMigrations(ctx.db);
    } catch (error) {
      const reason = databaseUnavailable(error) ?? (error as Error).message;
      return reply.status(503).header("retry-after", String(RETRY_AFTER_SECONDS)).send({ detail: `Database unavailable: ${reason}` });
    }
    if (pending.length > 0) {
      return reply.status(503).header("retry-after", String(RETRY_AFTER_SECONDS))
        .send({ detail: `Migrations pending: ${pending.join(", ")} (run npm run migrate, or start a server that applies them)` });
    }
    return { status: "ready" };
  });
}
