import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import type { Scope } from "../accounts/scope.ts";
import type { AppContext } from "../context.ts";
import { badRequest } from "../errors.ts";
import { documentationOnly } from "../http/openapi.ts";
import { FreeObject, Nullable } from "../schema-parts.ts";
import { querySpans, MAX_QUERY_ITEMS, type SpanWindow } from "./query/query-spans.ts";
import { spanIdHex, spanIdToUuid, traceIdHex, traceIdToUuid } from "./span.ts";
import { spanAnswer, traceTrees } from "./span-answer.ts";
import { ingestJsonSpans, spansOfTraceBody } from "./span-ingest.ts";
import { deleteTrace, spansByIds, spansOfTraces } from "./spans.ts";

const Open = { additionalProperties: true } as const;
const SpanRecord = Type.Object({
  trace_id: Type.String({ pattern: "^[0-9a-f]{32}$" }),
  span_id: Type.String({ pattern: "^[0-9a-f]{16}$" }),
  parent_id: Type.Optional(Type.String({ pattern: "^[0-9a-f]{16}$" })),
  trace_type: Type.String(),
  span_type: Type.String(),
  span_kind: Type.String(),
  span_name: Type.String(),
  start_time: Type.String(),
  end_time: Type.String(),
  status_code: Type.String(),
  status_message: Type.Optional(Type.String()),
  session_id: Type.Optional(Type.String()),
  user_id: Type.Optional(Type.String()),
  agent_id: Type.Optional(Type.String()),
  attributes: FreeObject,
  references: Type.Optional(Type.Array(FreeObject)),
  links: Type.Optional(Type.Array(FreeObject)),
  events: Type.Optional(Type.Array(FreeObject)),
  created_at: Type.String(),
  created_by_id: Type.Optional(Type.String()),
  spans: Type.Optional(Type.Record(Type.String(), Type.Unknown(), {
    description: "Children by name (a list when two share one)",
  })),
}, Open);
const Traces = Type.Record(Type.String(), Type.Object({ spans: Type.Record(Type.String(), SpanRecord) }), {
  description: "By trace id: the trace's root span by name, each span's children under its `spans`",
});
const WindowAnswer = Type.Object({
  newest: Type.String(), next: Type.String(), limit: Type.Integer(), oldest: Type.Optional(Type.String()),
}, { description: "Where the next page starts: send it back as the query's windowing" });
const TracingAnswer = Type.Object({
  count: Type.Integer(),
  traces: Type.Optional(Traces),
  spans: Type.Optional(Type.Array(SpanRecord)),
  windowing: Type.Optional(WindowAnswer),
});

const Time = Type.Union([Type.String(), Type.Integer()]);
const Condition = Type.Object({
  field: Type.String({
    description: "trace_id, span_id, parent_id, trace_type, span_type, span_kind, span_name, start_time, end_time, " +
      "status_code, status_message, session_id, user_id, agent_id, attributes, references, links, events, content",
  }),
  key: Nullable(Type.String({ description: "For `attributes`: a dotted path, e.g. `ag.data.inputs.country`" })),
  operator: Nullable(Type.String({ description: "is, is_not, eq, neq, gt, lt, gte, lte, btwn, startswith, endswith, " +
    "contains, matches, like, in, not_in, exists, not_exists" })),
  value: Type.Optional(Type.Unknown()),
  options: Nullable(FreeObject),
}, Open);
const Filtering = Type.Object({
  operator: Nullable(Type.Union(["and", "or", "not", "nand", "nor"].map((o) => Type.Literal(o)))),
  conditions: Type.Optional(Type.Array(Type.Union([Condition, FreeObject]), {
    description: "Conditions, or nested filterings",
  })),
}, Open);
const Window = Type.Object({
  oldest: Nullable(Time), newest: Nullable(Time), next: Nullable(Type.String()),
  limit: Nullable(Type.Integer({ minimum: 1 })), order: Nullable(Type.String()), interval: Nullable(Type.Integer()),
  rate: Nullable(Type.Number()),
}, { additionalProperties: false });
const Focus = Type.Union([Type.Literal("trace"), Type.Literal("span")]);
const SpansQuery = Type.Object({
  focus: Nullable(Focus),
  format: Nullable(Type.String()),
  oldest: Nullable(Time),
  newest: Nullable(Time),
  next: Nullable(Type.String()),
  limit: Nullable(Type.Integer({ minimum: 1 })),
  filter: Nullable(Type.Union([Filtering, Type.String()])),
  formatting: Nullable(Type.Object({ focus: Nullable(Focus), format: Nullable(Type.String()) }, {
    additionalProperties: false,
  })),
  filtering: Nullable(Filtering),
  windowing: Nullable(Window),
}, { additionalProperties: false });
const PreviewSpansQuery = Type.Object({ filtering: Nullable(Filtering), windowing: Nullable(Window) }, {
  additionalProperties: false,
});
const SpansAnswer = Type.Object({
  count: Type.Integer(), spans: Type.Array(SpanRecord), windowing: Type.Optional(WindowAnswer),
});
const IngestBody = Type.Object({
  spans: Type.Array(FreeObject, {
    description: "Spans in the reference's model: hex `trace_id`, `span_id`, `parent_id`; `start_time`, " +
      "`end_time` as ISO 8601 or seconds to nanoseconds; attributes nested or dotted",
  }),
}, Open);
const IngestAnswer = Type.Object({ count: Type.Integer({ description: "How many spans were stored" }) });
const TraceBody = Type.Object({
  spans: Type.Optional(Type.Array(FreeObject, { description: "Spans as `/tracing/spans/ingest` takes them" })),
  traces: Type.Optional(Type.Record(Type.String(), FreeObject, {
    description: "By trace id: `{spans: {<name>: span}}`, each span's children under its `spans`",
  })),
}, Open);
const DeleteAnswer = Type.Object({
  count: Type.Integer(),
  links: Type.Array(Type.Object({ trace_id: Type.String(), span_id: Type.String() }), {
    description: "The spans deleted",
  }),
});
type SpansQueryBody = {
  focus?: "trace" | "span" | null; oldest?: unknown; newest?: unknown; next?: unknown; limit?: number | null;
  filter?: unknown; formatting?: { focus?: "trace" | "span" | null } | null; filtering?: unknown;
  windowing?: SpanWindow | null;
};

function filterOf(body: SpansQueryBody): unknown {
  if (typeof body.filter !== "string") return body.filtering ?? body.filter;
  try {
    return JSON.parse(body.filter);
  } catch {
    throw badRequest("filter is neither a filtering object nor its JSON text");
  }
}

/** The trace id a path names, as stored (a UUID); 400 when it is not one. */
function traceIdOf(params: { trace_id: string }): string {
  try {
    return traceIdToUuid(params.trace_id);
  } catch {
    throw badRequest("Invalid trace_id.");
  }
}

/**
 * The reference's tracing router (a trace by id, the span query) and its preview `/spans/query`, over the spans
 * OTLP ingestion stores.
 */
export async function tracingRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get("/tracing/traces/:trace_id", {
    schema: {
      tags: ["Observability"],
      summary: "Fetch a trace's spans as a tree",
      description: "A trace this project does not hold answers `{count: 0}`, as the reference does.",
      params: Type.Object({ trace_id: Type.String() }),
    },
    config: documentationOnly({ response: { 200: TracingAnswer } }),
  }, async (req) => {
    const traceId = traceIdOf(req.params as { trace_id: string });
    await ctx.traces?.flush(); // a hosted invocation just answered may still be on its way to the table
    const traces = traceTrees(await spansOfTraces(ctx.db, req.scope, [traceId]));
    const count = Object.keys(traces).length;
    return count > 0 ? { count, traces } : { count: 0 };
  });

  app.post("/tracing/spans/ingest", {
    schema: {
      tags: ["Observability"],
      summary: "Ingest spans sent as JSON in the reference's span model",
      description: "Normalised as OTLP spans are; a span sent again under the same ids replaces the stored one. " +
        "A span whose ids or times cannot be read is a `400` and nothing is stored.",
      body: IngestBody,
    },
    config: documentationOnly({ response: { 202: IngestAnswer } }),
  }, async (req, reply) => {
    return reply.code(202).send({ count: await ingest(ctx, req.scope, (req.body as IngestBody).spans) });
  });

  app.post("/tracing/traces", {
    schema: {
      tags: ["Observability"],
      summary: "Ingest a trace sent as JSON: a list of spans or a tree of them",
      description: "As `/tracing/spans/ingest`, with the spans as a list (`spans`) or as trees by trace id " +
        "(`traces`).",
      body: TraceBody,
    },
    config: documentationOnly({ response: { 202: IngestAnswer } }),
  }, async (req, reply) => {
    const spans = spansOfTraceBody(req.body as Record<string, unknown>);
    return reply.code(202).send({ count: await ingest(ctx, req.scope, spans) });
  });

  app.put("/tracing/traces/:trace_id", {
    schema: {
      tags: ["Observability"],
      summary: "Replace a trace's spans",
      description: "Spans as `POST /tracing/traces` takes them, all of the trace the path names (`400` otherwise); " +
        "each replaces the stored span of its ids. Answers the spans written.",
      params: Type.Object({ trace_id: Type.String() }),
      body: TraceBody,
    },
    config: documentationOnly({ response: { 202: DeleteAnswer } }),
  }, async (req, reply) => {
    const traceId = traceIdOf(req.params as { trace_id: string });
    const sent = spansOfTraceBody(req.body as Record<string, unknown>);
    const named = new Set(sent.map((span) => {
      try {
        return traceIdToUuid(String(span.trace_id));
      } catch {
        throw badRequest("Invalid trace_id in path or payload.");
      }
    }));
    if (named.size !== 1) throw badRequest("Trace payload must contain exactly one trace_id.");
    if (!named.has(traceId)) throw badRequest("Path trace_id does not match payload trace_id.");
    const stored = await ingestJsonSpans(ctx.db, req.scope, sent);
    const links = stored.map((s) => ({ trace_id: traceIdHex(s.trace_id), span_id: spanIdHex(s.span_id) }));
    return reply.code(202).send({ count: links.length, links });
  });

  app.delete("/tracing/traces/:trace_id", {
    schema: {
      tags: ["Observability"],
      summary: "Delete a trace's spans",
      description: "Answers the spans deleted; a trace this project does not hold answers `{count: 0, links: []}`.",
      params: Type.Object({ trace_id: Type.String() }),
    },
    config: documentationOnly({ response: { 202: DeleteAnswer } }),
  }, async (req, reply) => {
    const traceId = traceIdOf(req.params as { trace_id: string });
    const deleted = await deleteTrace(ctx.db, req.scope, traceId);
    const links = deleted.map((s) => ({ trace_id: traceIdHex(s.trace_id), span_id: spanIdHex(s.span_id) }));
    return reply.code(202).send({ count: links.length, links });
  });

  app.post("/tracing/spans/query", {
    schema: {
      tags: ["Observability"],
      summary: "Query spans, as traces (focus `trace`, the default) or as a flat list (focus `span`)",
      description: "The reference's body (`focus`, `oldest`, `newest`, `limit`, `filter`) or the nested one " +
        "(`formatting`, `windowing`, `filtering`). Newest first; at most " +
        `${MAX_QUERY_ITEMS} traces or spans a page, with the next page's \`windowing\` when the page is full.`,
      body: SpansQuery,
    },
    config: documentationOnly({ response: { 200: TracingAnswer } }),
  }, async (req) => {
    const body = (req.body ?? {}) as SpansQueryBody;
    const focus = body.formatting?.focus ?? body.focus ?? "trace";
    const windowing: SpanWindow = body.windowing
      ?? { oldest: body.oldest, newest: body.newest, next: body.next, limit: body.limit };
    await ctx.traces?.flush();
    const { spans, next } = await querySpans(ctx.db, req.scope, { focus, filtering: filterOf(body), windowing });
    const page = next ? { windowing: next } : {};
    if (focus === "span") {
      return spans.length > 0 ? { count: spans.length, spans: spans.map(spanAnswer), ...page } : { count: 0 };
    }
    const traces = traceTrees(spans);
    const count = Object.keys(traces).length;
    return count > 0 ? { count, traces, ...page } : { count: 0 };
  });

  app.get("/spans/", {
    schema: {
      tags: ["Observability"],
      summary: "Fetch spans by trace ids and/or span ids (the reference's preview router)",
      description: "`trace_id` / `span_id` repeated, or `trace_ids` / `span_ids` separated by commas; at least one " +
        "id (`400` otherwise). Spans this project does not hold are left out; oldest first.",
      querystring: Type.Object({
        trace_id: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
        trace_ids: Type.Optional(Type.String()),
        span_id: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
        span_ids: Type.Optional(Type.String()),
      }),
    },
    config: documentationOnly({ response: { 200: SpansAnswer } }),
  }, async (req) => {
    const query = req.query as Record<string, string | string[] | undefined>;
    const ids = (one: string, many: string, parse: (id: string) => string) => {
      const list = [query[one] ?? []].flat();
      if (typeof query[many] === "string") list.push(...query[many].split(",").map((id) => id.trim()).filter(Boolean));
      return [...new Set(list.map((id) => {
        try {
          return parse(id);
        } catch {
          throw badRequest(`Invalid ${one}: ${id}`);
        }
      }))];
    };
    const traceIds = ids("trace_id", "trace_ids", traceIdToUuid);
    const spanIds = ids("span_id", "span_ids", spanIdToUuid);
    if (traceIds.length + spanIds.length === 0) {
      throw badRequest("At least one trace_id or span_id query parameter is required.");
    }
    await ctx.traces?.flush();
    const spans = await spansByIds(ctx.db, req.scope, traceIds, spanIds);
    return { count: spans.length, spans: spans.map(spanAnswer) };
  });

  app.get("/spans/:trace_id/:span_id", {
    schema: {
      tags: ["Observability"],
      summary: "Fetch one span",
      description: "`{count: 0}` when this project holds no such span.",
      params: Type.Object({ trace_id: Type.String(), span_id: Type.String() }),
    },
    config: documentationOnly({
      response: { 200: Type.Object({ count: Type.Integer(), span: Type.Optional(SpanRecord) }) },
    }),
  }, async (req) => {
    const params = req.params as { trace_id: string; span_id: string };
    const traceId = traceIdOf(params);
    let spanId: string;
    try {
      spanId = spanIdToUuid(params.span_id);
    } catch {
      throw badRequest("Invalid span_id.");
    }
    await ctx.traces?.flush();
    const [span] = await spansByIds(ctx.db, req.scope, [traceId], [spanId]);
    return span ? { count: 1, span: spanAnswer(span) } : { count: 0 };
  });

  app.post("/spans/query", {
    schema: {
      tags: ["Observability"],
      summary: "Query spans as a flat list (the reference's preview router)",
      description: "`filtering` and `windowing` as in `/tracing/spans/query`; newest first, at most " +
        `${MAX_QUERY_ITEMS} spans a page, with the next page's \`windowing\` when the page is full.`,
      body: PreviewSpansQuery,
    },
    config: documentationOnly({ response: { 200: SpansAnswer } }),
  }, async (req) => {
    const body = (req.body ?? {}) as { filtering?: unknown; windowing?: SpanWindow | null };
    await ctx.traces?.flush();
    const { spans, next } = await querySpans(ctx.db, req.scope, {
      focus: "span", filtering: body.filtering, windowing: body.windowing ?? {},
    });
    return { count: spans.length, spans: spans.map(spanAnswer), ...(next ? { windowing: next } : {}) };
  });
}

type IngestBody = { spans: Record<string, unknown>[] };

/** Normalises and stores JSON spans; how many were stored. */
async function ingest(ctx: AppContext, scope: Scope, sent: Record<string, unknown>[]): Promise<number> {
  return (await ingestJsonSpans(ctx.db, scope, sent)).length;
}
