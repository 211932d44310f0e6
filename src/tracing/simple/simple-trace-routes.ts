import type { FastifyInstance, FastifyRequest } from "fastify";
import type { AppContext } from "../../context.ts";
import { documentationOnly } from "../../http/openapi.ts";
import { MAX_QUERY_ITEMS, type SpanWindow } from "../query/query-spans.ts";
import { simpleTraceSchemas } from "./simple-trace-schemas.ts";
import {
  createSimpleTrace, deleteSimpleTrace, editSimpleTrace, fetchSimpleTrace, querySimpleTraces,
  type LinkInput, type SimpleTraceCreate, type SimpleTraceEdit, type SimpleTraceMode, type SimpleTraceQuery,
} from "./simple-traces.ts";

type Body = Record<string, any>;

const ROUTERS = {
  trace: {
    prefix: "/simple/traces", name: "trace", title: "a simple trace", linkName: "link", linksField: "links",
    created: 202,
  },
  annotation: {
    prefix: "/annotations", name: "annotation", title: "an annotation", linkName: "annotation_link",
    linksField: "annotation_links",
    created: 200,
  },
} as const;

const MODE_NOTES: Record<SimpleTraceMode, string> = {
  trace: "With links and an evaluator reference, the evaluator is resolved (created when the project has none " +
    "of that slug) and the references answer its id, variant and revision.",
  annotation: "The evaluator reference is required; it is resolved (created when the project has none of that " +
    "slug, its outputs schema inferred from these outputs) and `data.outputs` must fit its outputs schema " +
    "(`422` otherwise).",
};

/**
 * The reference's simple traces router (`/simple/traces/`, mode `trace`) or annotations router (`/annotations/`,
 * mode `annotation`): one-span traces created, fetched, edited, deleted and queried by their simple fields.
 */
export function simpleTraceRoutes(mode: SimpleTraceMode) {
  const r = ROUTERS[mode];
  const s = simpleTraceSchemas(r.name);
  const tags = ["Observability"];
  return async function routes(app: FastifyInstance, ctx: AppContext) {
    const deps = { db: ctx.db, config: ctx.config };
    const one = (trace: Body | null) => (trace ? { count: 1, [r.name]: trace } : { count: 0 });

    app.post(`${r.prefix}/`, {
      schema: {
        tags, summary: `Create ${r.title} (one span under new ids)`,
        description: `${MODE_NOTES[mode]} Stored as a trace of type \`annotation\`.`, body: s.CreateBody,
      },
      config: documentationOnly({ response: { [r.created]: s.OneAnswer } }),
    }, async (req, reply) => {
      const trace = await createSimpleTrace(deps, req.scope, mode, (req.body as Body)[r.name] as SimpleTraceCreate);
      return reply.code(r.created).send(one(trace));
    });

    app.get(`${r.prefix}/:trace_id`, {
      schema: {
        tags, summary: `Fetch ${r.title} by trace id`, params: s.Params,
        description: "`{count: 0}` when this project holds no such trace (or it has no `data`); a malformed id is " +
          "a `400`.",
      },
      config: documentationOnly({ response: { 200: s.OneAnswer } }),
    }, async (req) => {
      await ctx.traces?.flush();
      return one(await fetchSimpleTrace(deps, req.scope, (req.params as { trace_id: string }).trace_id));
    });

    const edit = async (req: FastifyRequest) => {
      const { trace_id: traceId } = req.params as { trace_id: string };
      const body = (req.body as Body)[r.name] as SimpleTraceEdit;
      return one(await editSimpleTrace(deps, req.scope, mode, traceId, body));
    };
    const editSchema = {
      tags, params: s.Params, body: s.EditBody,
      summary: `Edit ${r.title}: its data, tags and meta replaced, references and links when given`,
      description: `Origin, kind and channel stay as created. ${MODE_NOTES[mode]} \`{count: 0}\` when this ` +
        "project holds no such trace.",
    };
    app.patch(`${r.prefix}/:trace_id`, {
      schema: editSchema, config: documentationOnly({ response: { 200: s.OneAnswer } }),
    }, edit);
    app.put(`${r.prefix}/:trace_id`, {
      schema: { ...editSchema, summary: `${editSchema.summary} (as PATCH)` },
      config: documentationOnly({ response: { 200: s.OneAnswer } }),
    }, edit);

    app.delete(`${r.prefix}/:trace_id`, {
      schema: {
        tags, params: s.Params, summary: `Delete ${r.title}`,
        description: "Answers the deleted span's ids; `{count: 0}` when this project holds no such trace.",
      },
      config: documentationOnly({ response: { 200: s.LinkAnswer } }),
    }, async (req) => {
      const link = await deleteSimpleTrace(deps, req.scope, (req.params as { trace_id: string }).trace_id);
      return link ? { count: 1, [r.linkName]: link } : { count: 0 };
    });

    app.post(`${r.prefix}/query`, {
      schema: {
        tags, body: s.QueryBody, summary: `Query ${r.name}s`,
        description: `\`${r.name}\`: origin, kind, channel, tags, meta, references (e.g. ` +
          "`{evaluator: {slug}}`) and links (a map: all must match; a list: any) the traces must have; " +
          `\`${r.linksField}\`: only these traces. Newest first, at most ${MAX_QUERY_ITEMS} (\`windowing\` pages).` +
          (mode === "annotation" ? " Only traces of type `annotation`." : " Traces of type invocation or annotation."),
      },
      config: documentationOnly({ response: { 200: s.ManyAnswer } }),
    }, async (req) => {
      const body = (req.body ?? {}) as Body;
      await ctx.traces?.flush();
      const traces = await querySimpleTraces(deps, req.scope, mode, (body[r.name] ?? null) as SimpleTraceQuery | null,
        (body[r.linksField] ?? null) as LinkInput[] | null, (body.windowing ?? null) as SpanWindow | null);
      return { count: traces.length, [`${r.name}s`]: traces };
    });
  };
}
