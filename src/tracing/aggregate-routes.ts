import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import type { AppContext } from "../context.ts";
import { badRequest } from "../errors.ts";
import { documentationOnly } from "../http/openapi.ts";
import { FreeObject, Nullable } from "../schema-parts.ts";
import { legacyAnalytics } from "./query/legacy-analytics.ts";
import { groupIds, MAX_GROUP_IDS, type GroupWindow } from "./query/span-groups.ts";

const Time = Type.Union([Type.String(), Type.Integer()]);
const Window = Type.Object({
  oldest: Nullable(Time), newest: Nullable(Time), next: Nullable(Type.String()),
  limit: Nullable(Type.Integer({ minimum: 1 })), order: Nullable(Type.String({ description: "ascending or descending" })),
  interval: Nullable(Type.Integer({ description: "Bucket width in minutes (analytics)" })), rate: Nullable(Type.Number()),
}, { additionalProperties: false });
const GroupsQuery = Type.Object({
  realtime: Nullable(Type.Boolean({ description: "Order by last activity instead of the (stable) first" })),
  windowing: Nullable(Window),
}, { additionalProperties: true });
const GroupWindowAnswer = Type.Object({
  oldest: Type.Optional(Type.String()), newest: Type.Optional(Type.String()), limit: Type.Integer(),
  order: Type.Optional(Type.String()),
}, { description: "The next page's window: send it back as `windowing`" });
const Analytics = Type.Object({
  count: Type.Integer(), duration: Type.Number(), costs: Type.Number(), tokens: Type.Number(),
});
const AnalyticsAnswer = Type.Object({
  count: Type.Integer(),
  buckets: Type.Array(Type.Object({
    timestamp: Type.String(), interval: Type.Integer({ description: "Minutes" }), total: Analytics, errors: Analytics,
  }), { description: "Oldest first; `errors` holds the spans that recorded an exception" }),
});
const Focus = Type.Union([Type.Literal("trace"), Type.Literal("span")]);
const AnalyticsQuery = Type.Object({
  focus: Nullable(Focus), oldest: Nullable(Time), newest: Nullable(Time), interval: Nullable(Type.Integer()),
  filter: Nullable(Type.Union([FreeObject, Type.String()])), filtering: Nullable(FreeObject),
  formatting: Nullable(Type.Object({ focus: Nullable(Focus), format: Nullable(Type.String()) })),
  windowing: Nullable(Window),
}, { additionalProperties: true });

type AnalyticsBody = {
  focus?: "trace" | "span" | null; oldest?: unknown; newest?: unknown; interval?: unknown; filter?: unknown;
  filtering?: unknown; formatting?: { focus?: "trace" | "span" | null } | null;
  windowing?: { oldest?: unknown; newest?: unknown; interval?: unknown } | null;
};

function filterOf(body: AnalyticsBody): unknown {
  if (typeof body.filter !== "string") return body.filtering ?? body.filter;
  try {
    return JSON.parse(body.filter);
  } catch {
    throw badRequest("filter is neither a filtering object nor its JSON text");
  }
}

/**
 * The reference's aggregate reads over spans, under its legacy (`/tracing/`) and preview (`/spans/`) prefixes:
 * the sessions and users traces name, and the legacy analytics buckets.
 */
export async function aggregateRoutes(app: FastifyInstance, ctx: AppContext) {
  for (const prefix of ["/tracing", "/spans"]) {
    for (const group of ["session", "user"] as const) {
      app.post(`${prefix}/${group}s/query`, {
        schema: {
          tags: ["Observability"], body: GroupsQuery,
          summary: `List the distinct ${group} ids traces name (ag.${group}.id)`,
          description: "Ordered by first activity (`realtime`: last), newest first unless `windowing.order` is " +
            `\`ascending\`; at most ${MAX_GROUP_IDS}. With a \`limit\`, a full page answers the next page's ` +
            "`windowing`.",
        },
        config: documentationOnly({
          response: {
            200: Type.Object({
              count: Type.Integer(), [`${group}_ids`]: Type.Array(Type.String()),
              windowing: Type.Optional(GroupWindowAnswer),
            }),
          },
        }),
      }, async (req) => {
        const body = (req.body ?? {}) as { realtime?: boolean | null; windowing?: GroupWindow | null };
        await ctx.traces?.flush(); // hosted invocations just answered may still be on their way to the table
        const { ids, next } = await groupIds(ctx.db, req.scope, group, body.realtime === true, body.windowing ?? {});
        return { count: ids.length, [`${group}_ids`]: ids, ...(next ? { windowing: next } : {}) };
      });
    }
  }

  app.post("/tracing/spans/analytics", {
    schema: {
      tags: ["Observability"], body: AnalyticsQuery,
      summary: "Count spans, their duration, costs and tokens in time buckets (the reference's legacy analytics)",
      description: "`windowing` (or top-level `oldest`, `newest`, `interval` in minutes) and `filtering` as in " +
        "`/tracing/spans/query`; focus `trace` counts root spans with their cumulative costs and tokens. Buckets " +
        "go by the time spans were stored; at most 1,024 (a finer interval is widened).",
    },
    config: documentationOnly({ response: { 200: AnalyticsAnswer } }),
  }, async (req) => {
    const body = (req.body ?? {}) as AnalyticsBody;
    const window = body.windowing ?? {};
    await ctx.traces?.flush();
    const buckets = await legacyAnalytics(ctx.db, req.scope, {
      focus: body.formatting?.focus ?? body.focus ?? "span",
      filtering: filterOf(body),
      oldest: window.oldest ?? body.oldest, newest: window.newest ?? body.newest,
      interval: window.interval ?? body.interval,
    });
    return { count: buckets.length, buckets };
  });
}
