import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import type { AppContext } from "../context.ts";
import { badRequest } from "../errors.ts";
import { documentationOnly } from "../http/openapi.ts";
import { FreeObject, Nullable } from "../schema-parts.ts";
import { MAX_BUCKETS } from "./query/analytics-window.ts";
import { MAX_HISTOGRAM_BINS, MAX_METRIC_SPECS, metricSpecs } from "./query/metric-specs.ts";
import { spanAnalytics } from "./query/span-analytics.ts";

const Time = Type.Union([Type.String(), Type.Integer()]);
const Focus = Type.Union([Type.Literal("trace"), Type.Literal("span")]);
const Window = Type.Object({
  oldest: Nullable(Time), newest: Nullable(Time),
  interval: Nullable(Type.Integer({ description: "Bucket width in minutes" })),
  rate: Nullable(Type.Number({ description: "Share of traces sampled, 0 to 1" })),
}, { additionalProperties: true });
const SpecsField = Nullable(Type.Unknown({
  description: "Metric specs `{type, path, bins, vmin, vmax, edge}` (a list, or its JSON text); none: the defaults",
}));
const AnalyticsBody = Type.Object({
  focus: Nullable(Focus), format: Nullable(Type.String()),
  oldest: Nullable(Time), newest: Nullable(Time), interval: Nullable(Type.Integer()), rate: Nullable(Type.Number()),
  filter: Nullable(Type.Union([FreeObject, Type.String()])), filtering: Nullable(FreeObject),
  windowing: Nullable(Window), formatting: Nullable(FreeObject), specs: SpecsField,
}, { additionalProperties: true });
const AnalyticsParams = Type.Object({
  focus: Type.Optional(Focus), format: Type.Optional(Type.String()), oldest: Type.Optional(Type.String()),
  newest: Type.Optional(Type.String()), interval: Type.Optional(Type.Integer()), rate: Type.Optional(Type.Number()),
  filter: Type.Optional(Type.String({ description: "Filtering as JSON text" })),
  specs: Type.Optional(Type.String({ description: "Metric specs as JSON text" })),
});
const AnalyticsAnswer = Type.Object({
  count: Type.Integer({ description: "Buckets answered" }),
  buckets: Type.Array(Type.Object({
    timestamp: Type.String(), interval: Type.Integer({ description: "Minutes" }),
    metrics: Type.Record(Type.String(), FreeObject, { description: "Statistics by each spec's `path`" }),
  }), { description: "Oldest first; only buckets with values" }),
  query: FreeObject,
  specs: Type.Array(FreeObject),
});

type Fields = {
  focus?: string | null; format?: string | null; oldest?: unknown; newest?: unknown; interval?: unknown;
  rate?: unknown; filter?: unknown; filtering?: unknown; specs?: unknown;
  windowing?: { oldest?: unknown; newest?: unknown; interval?: unknown; rate?: unknown } | null;
  formatting?: { focus?: string | null; format?: string | null } | null;
};

/** A filter as an object, or its JSON text (as the query string carries it). */
function filterOf(fields: Fields): unknown {
  const filter = fields.filtering ?? fields.filter;
  if (typeof filter !== "string") return filter;
  try {
    return JSON.parse(filter);
  } catch {
    throw badRequest("filter is neither a filtering object nor its JSON text");
  }
}

/** The body's fields over the query string's, one by one; `windowing`/`filtering` as aliases of the flat ones. */
function merged(body: Fields, params: Fields) {
  const pick = (key: "oldest" | "newest" | "interval" | "rate") => body.windowing?.[key] ?? body[key] ?? params[key];
  const filtering = filterOf(body) ?? filterOf(params) ?? null;
  return {
    focus: body.formatting?.focus ?? body.focus ?? params.focus ?? "trace",
    format: body.formatting?.format ?? body.format ?? params.format ?? "agenta",
    oldest: pick("oldest"), newest: pick("newest"), interval: pick("interval"), rate: pick("rate"), filtering,
    specs: metricSpecs(body.specs ?? params.specs),
  };
}

/** The query as answered back: formatting, the windowing sent, and the filtering (empty when none). */
function echo(q: ReturnType<typeof merged>) {
  const windowing = Object.fromEntries(
    (["oldest", "newest", "interval", "rate"] as const).filter((k) => q[k] !== undefined && q[k] !== null)
      .map((k) => [k, q[k]]),
  );
  return {
    formatting: { focus: q.focus, format: q.format },
    ...(Object.keys(windowing).length > 0 ? { windowing } : {}),
    filtering: q.filtering ?? { operator: "and", conditions: [] },
  };
}

/**
 * The reference's span analytics, under its legacy (`/tracing/`) and preview (`/spans/`) prefixes: statistics of
 * the values metric specs name, over root spans, in time buckets.
 */
export async function analyticsRoutes(app: FastifyInstance, ctx: AppContext) {
  for (const prefix of ["/tracing", "/spans"]) {
    app.post(`${prefix}/analytics/query`, {
      schema: {
        tags: ["Observability"], body: AnalyticsBody, querystring: AnalyticsParams,
        summary: "Statistics of span attributes in time buckets, as metric specs ask them",
        description: "Each spec `{type, path}` (`numeric/continuous`, `numeric/discrete`, `binary`, " +
          "`categorical/single`, `categorical/multiple`, `string`, `json`) gets, per bucket, the statistics of the " +
          "values of that type at `path` in the root spans that match `filter`: count; for numbers sum, mean, min, " +
          "max, range, percentiles and their spreads, and a histogram (`bins`, `vmin`, `vmax`, `edge`) or a " +
          "frequency table; for labels and booleans a frequency table. No specs: durations, errors, costs, tokens " +
          "and trace and span types. Buckets of `interval` minutes (widened past " +
          `${MAX_BUCKETS.toLocaleString("en-US")}) by the time spans were stored, the last 30 days by default; ` +
          "`rate` samples that share of traces. Fields in the body or the query string (`filter` and `specs` " +
          `as JSON text); at most ${MAX_METRIC_SPECS} specs and ${MAX_HISTOGRAM_BINS} bins (422), at most ` +
          `${ctx.config.analyticsMaxSpans.toLocaleString("en-US")} root spans read (400).`,
      },
      config: documentationOnly({ response: { 200: AnalyticsAnswer } }),
    }, async (req) => {
      const q = merged((req.body ?? {}) as Fields, (req.query ?? {}) as Fields);
      await ctx.traces?.flush(); // hosted invocations just answered may still be on their way to the table
      const buckets = await spanAnalytics(ctx.db, req.scope, { ...q, maxSpans: ctx.config.analyticsMaxSpans });
      return { count: buckets.length, buckets, query: echo(q), specs: q.specs };
    });
  }
}

