import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import type { AppContext } from "../context.ts";
import { badRequest, conflict, HttpError } from "../errors.ts";
import { savedQuery } from "../kinds/queries.ts";
import { documentationOnly } from "../http/openapi.ts";
import { FreeObject, Nullable } from "../schema-parts.ts";
import { MAX_QUERY_ITEMS, querySpans, type SpanWindow } from "../tracing/query/query-spans.ts";
import { traceIdHex, traceIdToUuid } from "../tracing/span.ts";
import { ingestJsonSpans, spansOfTraceList } from "../tracing/span-ingest.ts";
import { deleteTrace, type StoredSpan } from "../tracing/spans.ts";
import { findTrace, findTraces, traceAnswer } from "./traces.ts";

const Open = { additionalProperties: true } as const;
const TraceRecord = Type.Object({
  trace_id: Type.String({ pattern: "^[0-9a-f]{32}$" }),
  spans: Type.Record(Type.String(), Type.Unknown(), {
    description: "Root spans by name, each span's children under its `spans` (a list when two share a name)",
  }),
  span_id: Type.String({ description: "The root span's id" }),
  references: Nullable(FreeObject),
  inputs: Type.Unknown(),
  outputs: Type.Unknown(),
  status: Type.Object({
    code: Type.Integer(), type: Type.Optional(Type.String()), message: Type.Optional(Type.String()),
  }, Open),
  latency_ms: Type.Number(),
  usage: Type.Unknown(),
  created_at: Type.String(),
}, Open);
const TraceAnswer = Type.Object({ count: Type.Integer(), trace: Type.Optional(TraceRecord) });
const WindowAnswer = Type.Object({
  newest: Type.String(), next: Type.String(), limit: Type.Integer(), oldest: Type.Optional(Type.String()),
}, { description: "Where the next page starts: send it back as the query's windowing" });
const TracesAnswer = Type.Object({
  count: Type.Integer(), traces: Type.Array(TraceRecord), windowing: Type.Optional(WindowAnswer),
});
const TraceId = Type.String({ pattern: "^[0-9a-f]{32}$" });
/** Most traces one query by ids reads. */
const TRACES_PER_QUERY = 200;
const Window = Type.Object({
  oldest: Nullable(Type.Union([Type.String(), Type.Integer()])),
  newest: Nullable(Type.Union([Type.String(), Type.Integer()])),
  next: Nullable(Type.String()), limit: Nullable(Type.Integer({ minimum: 1 })), order: Nullable(Type.String()),
  interval: Nullable(Type.Integer()), rate: Nullable(Type.Number()),
}, { additionalProperties: false });
const TracesQuery = Type.Object({
  trace_ids: Type.Optional(Type.Array(TraceId, {
    minItems: 1, maxItems: TRACES_PER_QUERY,
    description: `By id (at most ${TRACES_PER_QUERY}): ids this project does not hold are left out, the rest ` +
      "answered in the order asked",
  })),
  filtering: Nullable(FreeObject),
  windowing: Nullable(Window),
  query_ref: Nullable(FreeObject),
  query_variant_ref: Nullable(FreeObject),
  query_revision_ref: Nullable(FreeObject),
}, Open);
const TraceTree = Type.Object({
  trace_id: Type.Optional(Type.String()),
  spans: Type.Optional(Type.Record(Type.String(), FreeObject, {
    description: "Root spans by name, children under each span's `spans`; a span without times is stamped now",
  })),
}, Open);
const IngestBody = Type.Object({ traces: Type.Optional(Nullable(Type.Array(TraceTree))) }, Open);
const TraceBody = Type.Object({ trace: Type.Optional(Nullable(TraceTree)) }, Open);
const IdsAnswer = Type.Object({ count: Type.Integer(), trace_ids: Type.Array(Type.String()) });
const IdAnswer = Type.Object({ count: Type.Integer(), trace_id: Type.Optional(Type.String()) });
const Params = Type.Object({ trace_id: Type.String() });
const IdsQuerystring = Type.Object({
  trace_id: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], {
    description: "A trace id; repeat the parameter for several",
  })),
  trace_ids: Type.Optional(Type.String({ description: "Trace ids separated by commas" })),
});
const MethodNotAllowed = { description: "`query` and `ingest` are not trace ids: they are POST routes" };

/** A trace id as stored (a uuid); 400 when it is not one. */
function uuidOf(id: string): string {
  try {
    return traceIdToUuid(id);
  } catch {
    throw badRequest(`Invalid trace_id: ${id}`);
  }
}

/** The spans of a page of whole traces (as querySpans answers them) as one answer per trace, in page order. */
function tracesOf(spans: StoredSpan[]) {
  const byTrace = new Map<string, StoredSpan[]>();
  for (const span of spans) {
    const list = byTrace.get(span.trace_id);
    if (list) list.push(span);
    else byTrace.set(span.trace_id, [span]);
  }
  return [...byTrace.values()].flatMap((group) => traceAnswer(group) ?? []);
}

/** The distinct trace ids of stored spans, in hex. */
const traceIdsOf = (spans: { trace_id: string }[]) => [...new Set(spans.map((s) => traceIdHex(s.trace_id)))];

/**
 * The reference's preview traces router (`/traces/*`): ingest, fetch by ids, query, create, edit, delete, over the
 * spans store. Hosted invocations are traces here too, and each trace answered also carries the summary of its
 * root span (inputs, outputs, status, latency, usage) that the console and the CLI show.
 */
export async function traceRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get("/traces/", {
    schema: {
      tags: ["Traces"], summary: "Fetch traces by id",
      description: "`?trace_id=a&trace_id=b` or `?trace_ids=a,b`; ids this project does not hold are left out. " +
        `No id is a \`400\`; at most ${TRACES_PER_QUERY}.`,
      querystring: IdsQuerystring,
    },
    config: documentationOnly({ response: { 200: TracesAnswer } }),
  }, async (req) => {
    const query = req.query as { trace_id?: string | string[]; trace_ids?: string };
    const ids = [query.trace_id ?? []].flat();
    if (query.trace_ids) ids.push(...query.trace_ids.split(",").map((id) => id.trim()).filter(Boolean));
    if (ids.length === 0) throw badRequest("At least one trace_id query parameter is required.");
    if (ids.length > TRACES_PER_QUERY) throw badRequest(`At most ${TRACES_PER_QUERY} trace ids a request.`);
    ids.forEach(uuidOf);
    await ctx.traces?.flush();
    const traces = await findTraces(ctx.db, req.scope, ids);
    return { count: traces.length, traces };
  });

  app.get("/traces/:trace_id", {
    schema: {
      tags: ["Traces"], summary: "Fetch one trace",
      description: "A trace this project does not hold answers `{count: 0}`, as the reference does.",
      params: Params,
    },
    config: documentationOnly({ response: { 200: TraceAnswer, 405: MethodNotAllowed } }),
  }, async (req) => {
    const { trace_id: traceId } = req.params as { trace_id: string };
    if (["query", "ingest"].includes(traceId.toLowerCase())) {
      throw new HttpError(405, `GET /traces/${traceId} is not supported.`);
    }
    uuidOf(traceId);
    await ctx.traces?.flush();
    const trace = await findTrace(ctx.db, req.scope, traceId);
    return trace ? { count: 1, trace } : { count: 0 };
  });

  app.post("/traces/query", {
    schema: {
      tags: ["Traces"], body: TracesQuery,
      summary: "Query traces: by ids, or with filtering and windowing",
      description: "With `trace_ids`, those traces. Otherwise `filtering` (as `/tracing/spans/query`: a trace " +
        "matches when one of its spans does) and `windowing`, newest first, at most " +
        `${MAX_QUERY_ITEMS} traces a page, with the next page's \`windowing\` when the page is full. ` +
        "A saved query (`query_ref`, `query_variant_ref` or `query_revision_ref`) gives the filtering and windowing " +
        "(the body's `windowing` wins); one whose `formatting.focus` is `span` is a `409` (ask `/spans/query`).",
    },
    config: documentationOnly({ response: { 200: TracesAnswer } }),
  }, async (req) => {
    const body = (req.body ?? {}) as { trace_ids?: string[]; filtering?: unknown; windowing?: SpanWindow | null } &
      Record<string, unknown>;
    await ctx.traces?.flush();
    if (body.trace_ids) {
      const traces = await findTraces(ctx.db, req.scope, body.trace_ids);
      return { count: traces.length, traces };
    }
    let { filtering, windowing } = body;
    if (body.query_ref || body.query_variant_ref || body.query_revision_ref) {
      const refs = { artifact: body.query_ref, variant: body.query_variant_ref, revision: body.query_revision_ref };
      const saved = await savedQuery(ctx.db, req.scope, refs as Parameters<typeof savedQuery>[2]);
      if (!saved) return { count: 0, traces: [] };
      if (saved.formatting?.focus === "span") {
        throw conflict("The saved query asks for spans (formatting.focus is span): use POST /spans/query");
      }
      filtering = saved.filtering ?? filtering;
      windowing = windowing ?? (saved.windowing as SpanWindow | null | undefined);
    }
    const query = { focus: "trace" as const, filtering, windowing: windowing ?? {} };
    const { spans, next } = await querySpans(ctx.db, req.scope, query);
    const traces = tracesOf(spans);
    return { count: traces.length, traces, ...(next ? { windowing: next } : {}) };
  });

  app.post("/traces/ingest", {
    schema: {
      tags: ["Traces"], body: IngestBody, summary: "Ingest traces given as span trees",
      description: "`traces`: `[{trace_id, spans: {<name>: span}}]`, each span's children under its `spans`. " +
        "Normalised as `/tracing/spans/ingest` does; none, or a span that cannot be read, is a `400`.",
    },
    config: documentationOnly({ response: { 202: IdsAnswer } }),
  }, async (req, reply) => {
    const traces = (req.body as { traces?: unknown[] | null }).traces;
    if (!traces || traces.length === 0) throw badRequest("Missing traces");
    const stored = await ingestJsonSpans(ctx.db, req.scope, spansOfTraceList(traces));
    const traceIds = traceIdsOf(stored);
    return reply.code(202).send({ count: traceIds.length, trace_ids: traceIds });
  });

  app.post("/traces/", {
    schema: {
      tags: ["Traces"], body: TraceBody, summary: "Create one trace given as a span tree",
      description: "`trace`: `{trace_id, spans: {<name>: span}}`, as an item of `/traces/ingest`.",
    },
    config: documentationOnly({ response: { 202: IdAnswer } }),
  }, async (req, reply) => {
    const trace = (req.body as { trace?: unknown }).trace;
    if (!trace) throw badRequest("Missing trace");
    const traceIds = traceIdsOf(await ingestJsonSpans(ctx.db, req.scope, spansOfTraceList([trace])));
    if (traceIds.length > 1) throw badRequest("Trace payload must contain exactly one trace_id.");
    return reply.code(202).send(traceIds.length ? { count: 1, trace_id: traceIds[0] } : { count: 0 });
  });

  app.put("/traces/:trace_id", {
    schema: {
      tags: ["Traces"], params: Params, body: TraceBody, summary: "Replace the spans of one trace",
      description: "The spans sent replace those stored under the same ids. The trace in the body must be the " +
        "one the path names (`400` otherwise).",
    },
    config: documentationOnly({ response: { 202: IdAnswer } }),
  }, async (req, reply) => {
    const pathId = uuidOf((req.params as { trace_id: string }).trace_id);
    const trace = (req.body as { trace?: Record<string, unknown> | null }).trace;
    if (!trace) throw badRequest("Missing trace");
    const spans = spansOfTraceList([trace]);
    const ids = new Set(spans.map((span) => (typeof span.trace_id === "string" ? uuidOf(span.trace_id) : null)));
    if (ids.size !== 1) throw badRequest("Trace payload must contain exactly one trace_id.");
    if (!ids.has(pathId)) throw badRequest("Path trace_id does not match payload trace_id.");
    await ingestJsonSpans(ctx.db, req.scope, spans);
    return reply.code(202).send({ count: 1, trace_id: traceIdHex(pathId) });
  });

  app.delete("/traces/:trace_id", {
    schema: {
      tags: ["Traces"], params: Params, summary: "Delete one trace",
      description: "`{count: 0}` when this project holds no such trace.",
    },
    config: documentationOnly({ response: { 202: IdAnswer } }),
  }, async (req, reply) => {
    const traceId = uuidOf((req.params as { trace_id: string }).trace_id);
    await ctx.traces?.flush();
    const deleted = await deleteTrace(ctx.db, req.scope, traceId);
    return reply.code(202).send(deleted.length ? { count: 1, trace_id: traceIdHex(traceId) } : { count: 0 });
  });
}
