/*
 * The bodies and answers of `/simple/traces/*` and `/annotations/*` (the reference's SimpleTrace and Annotation
 * models): one trace shape, wrapped as `trace` or `annotation`.
 */

import { Type, type TSchema } from "typebox";
import { FreeObject, Nullable } from "../../schema-parts.ts";

/** Most references, links or query links one trace or query names. */
export const MAX_SIMPLE_TRACE_ENTRIES = 100;

const Open = { additionalProperties: true } as const;
const Origin = Type.Union(["custom", "human", "auto"].map((v) => Type.Literal(v)), {
  description: "Who produced it: `custom` (the default), `human` (feedback) or `auto`",
});
const Kind = Type.Union(["adhoc", "eval", "play"].map((v) => Type.Literal(v)), {
  description: "Why: `adhoc` (the default), `eval` (within an evaluation) or `play`",
});
const Channel = Type.Union(["otlp", "web", "sdk", "api"].map((v) => Type.Literal(v)), {
  description: "Through what: `api` (the default), `sdk`, `web` or `otlp`",
});
const Ref = Type.Object({
  id: Nullable(Type.String()), slug: Nullable(Type.String()),
  version: Nullable(Type.Union([Type.String(), Type.Integer()])),
}, Open);
const References = Type.Record(Type.String(), Type.Union([Ref, Type.Null()]), {
  maxProperties: MAX_SIMPLE_TRACE_ENTRIES,
  description: "By role: `evaluator`, `evaluator_variant`, `evaluator_revision`, `application`, `testset`, " +
    "`testcase`, …: `{id?, slug?, version?}`. An evaluator given by slug is looked up in the project",
});
/** A span a trace links to (fields besides the ids are accepted and not stored). */
export const LinkSchema = Type.Object({ trace_id: Nullable(Type.String()), span_id: Nullable(Type.String()) }, Open);
const Links = Type.Union([
  Type.Record(Type.String(), Type.Union([LinkSchema, Type.Null()]), { maxProperties: MAX_SIMPLE_TRACE_ENTRIES }),
  Type.Array(LinkSchema, { maxItems: MAX_SIMPLE_TRACE_ENTRIES }),
], { description: "Spans by name (`{invocation: {trace_id, span_id}}`), or a list (named by position)" });
const Data = Type.Object({}, {
  additionalProperties: true, minProperties: 1, description: "The payload, e.g. `{outputs: {score: 1}}`",
});

const Create = Type.Object({
  origin: Nullable(Origin), kind: Nullable(Kind), channel: Nullable(Channel),
  tags: Nullable(FreeObject), meta: Nullable(FreeObject), data: Data,
  references: Nullable(References), links: Nullable(Links),
}, Open);
const Edit = Type.Object({
  tags: Nullable(FreeObject), meta: Nullable(FreeObject), data: Data,
  references: Nullable(References), links: Nullable(Links),
}, Open);
const Query = Type.Object({
  origin: Nullable(Origin), kind: Nullable(Kind), channel: Nullable(Channel),
  tags: Nullable(FreeObject), meta: Nullable(FreeObject),
  references: Nullable(References), links: Nullable(Links),
}, Open);
const Window = Type.Object({
  oldest: Nullable(Type.Union([Type.String(), Type.Integer()])),
  newest: Nullable(Type.Union([Type.String(), Type.Integer()])),
  next: Nullable(Type.String()), limit: Nullable(Type.Integer({ minimum: 1 })),
}, Open);

const SimpleTrace = Type.Object({
  trace_id: Type.String(), span_id: Type.String(), created_at: Type.Optional(Type.String()),
  created_by_id: Type.Optional(Type.String()),
  origin: Origin, kind: Kind, channel: Channel,
  tags: Type.Optional(FreeObject), meta: Type.Optional(FreeObject), data: FreeObject,
  references: Type.Record(Type.String(), FreeObject),
  links: Type.Record(Type.String(), Type.Object({ trace_id: Type.String(), span_id: Type.String() })),
});
const LinkAnswer = Type.Object({ trace_id: Type.String(), span_id: Type.String() });

/** The schemas of one router, its trace wrapped under `name` (`trace` or `annotation`). */
export function simpleTraceSchemas(name: "trace" | "annotation") {
  const plural = `${name}s`;
  const linkName = name === "trace" ? "link" : "annotation_link";
  const wrap = (schema: TSchema) => Type.Object({ [name]: schema }, Open);
  return {
    CreateBody: wrap(Create),
    EditBody: wrap(Edit),
    QueryBody: Type.Object({
      [name]: Nullable(Query),
      [`${name === "trace" ? "" : "annotation_"}links`]: Nullable(Type.Array(LinkSchema, {
        maxItems: MAX_SIMPLE_TRACE_ENTRIES, description: "Only these traces (by `trace_id`)",
      })),
      windowing: Nullable(Window),
    }, Open),
    OneAnswer: Type.Object({ count: Type.Integer(), [name]: Type.Optional(SimpleTrace) }),
    ManyAnswer: Type.Object({ count: Type.Integer(), [plural]: Type.Array(SimpleTrace) }),
    LinkAnswer: Type.Object({ count: Type.Integer(), [linkName]: Type.Optional(LinkAnswer) }),
    Params: Type.Object({ trace_id: Type.String() }),
  };
}
