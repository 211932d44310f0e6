import { Type, type TSchema } from "typebox";
import { FreeObject, WindowingSchema } from "../../schema-parts.ts";

/*
 * Evaluation entities as answered, in the reference's shapes (`api/oss/src/core/evaluations/types.py`:
 * EvaluationRun, EvaluationScenario, EvaluationResult, EvaluationMetrics, EvaluationQueue, SimpleEvaluation,
 * SimpleQueue). Every listed field is always present (null when unset). Records and their `data`, `flags`,
 * `tags` and `meta` allow more fields, since the entity routes store the extras a client sends.
 */

const Open = { additionalProperties: true } as const;
const OrNull = (t: TSchema) => Type.Union([t, Type.Null()]);
const Id = Type.String({ format: "uuid" });
const Stamp = Type.String({ format: "date-time" });
const Labels = OrNull(FreeObject);

/** An evaluation entity's status. */
export const StatusSchema = Type.Union(
  ["pending", "queued", "running", "success", "failure", "errors", "cancelled"].map((s) => Type.Literal(s)),
);

const Origin = Type.Union(["custom", "human", "auto"].map((o) => Type.Literal(o)));
/** Revision ids, as a list (each takes the step's default origin) or with an origin each. */
export const TargetSchema = Type.Union([Type.Array(Id), Type.Record(Type.String({ format: "uuid" }), Origin)]);

/** One step of a run: the revisions it pins (`references`), what it does (`type`) and who does it (`origin`). */
export const RunStepSchema = Type.Object({
  key: Type.String({ minLength: 1 }),
  type: Type.Union(["input", "invocation", "annotation"].map((t) => Type.Literal(t))),
  origin: Origin,
  references: Type.Record(Type.String(), FreeObject),
  inputs: Type.Optional(OrNull(Type.Array(Type.Object({ key: Type.String() }, Open)))),
}, Open);

const Concurrency = Type.Object({
  batch_size: Type.Optional(OrNull(Type.Integer())),
  max_retries: Type.Optional(OrNull(Type.Integer())),
  retry_delay: Type.Optional(OrNull(Type.Number())),
}, Open);

/** A run's `data`: its steps, repeats, concurrency and column mappings. */
export const RunDataSchema = Type.Object({
  steps: Type.Optional(OrNull(Type.Array(RunStepSchema))),
  repeats: Type.Optional(OrNull(Type.Integer({ minimum: 1 }))),
  concurrency: Type.Optional(OrNull(Concurrency)),
  mappings: Type.Optional(OrNull(Type.Array(FreeObject))),
}, Open);

const metadata = { version: Type.String(), flags: Labels, tags: Labels, meta: Labels };
const created = { created_at: Stamp, updated_at: OrNull(Stamp), created_by_id: OrNull(Id), updated_by_id: OrNull(Id) };
const archived = { deleted_at: OrNull(Stamp), deleted_by_id: OrNull(Id) };
const header = { name: OrNull(Type.String()), description: OrNull(Type.String()) };
const timing = { interval: OrNull(Type.Integer()), timestamp: OrNull(Stamp) };

export const RunRecord = Type.Object({
  id: Id, ...metadata, ...header, ...created, ...archived, status: StatusSchema, data: OrNull(RunDataSchema),
}, { ...Open, description: "An evaluation run (EvaluationRun)" });

export const ScenarioRecord = Type.Object({
  id: Id, ...metadata, ...created, status: StatusSchema, ...timing, run_id: Id,
}, { ...Open, description: "A scenario of a run: one testcase or trace (EvaluationScenario)" });

export const ResultRecord = Type.Object({
  id: Id, ...metadata, ...created, status: StatusSchema, ...timing,
  hash_id: OrNull(Id), trace_id: OrNull(Type.String()), testcase_id: OrNull(Id), error: Labels,
  repeat_idx: Type.Integer({ minimum: 0 }), step_key: Type.String(), scenario_id: Id, run_id: Id,
}, { ...Open, description: "One cell of a run: a scenario's step at one repeat (EvaluationResult)" });

export const MetricsRecord = Type.Object({
  id: Id, ...metadata, ...created, status: StatusSchema, data: Labels, ...timing, scenario_id: OrNull(Id), run_id: Id,
}, { ...Open, description: "Metrics of a run, of one scenario, or of one time bucket (EvaluationMetrics)" });

const QueueFlags = Type.Object({ is_default: Type.Optional(Type.Boolean()), is_sequential: Type.Optional(Type.Boolean()) }, Open);
const QueueData = Type.Object({
  user_ids: Type.Optional(OrNull(Type.Array(Type.Array(Id)))),
  scenario_ids: Type.Optional(OrNull(Type.Array(Id))),
  step_keys: Type.Optional(OrNull(Type.Array(Type.String()))),
  batch_size: Type.Optional(OrNull(Type.Integer({ minimum: 1 }))),
  batch_offset: Type.Optional(OrNull(Type.Integer({ minimum: 0 }))),
}, Open);

export const QueueRecord = Type.Object({
  id: Id, ...metadata, flags: OrNull(QueueFlags), ...header, ...created, ...archived, status: StatusSchema,
  data: OrNull(QueueData), run_id: Id,
}, { ...Open, description: "An annotation queue: which scenarios of a run go to which users (EvaluationQueue)" });

export const SimpleEvaluationRecord = Type.Object({
  id: Id, ...metadata, ...header, ...created, ...archived,
  data: Type.Object({
    status: StatusSchema,
    query_steps: OrNull(TargetSchema),
    testset_steps: OrNull(TargetSchema),
    application_steps: OrNull(TargetSchema),
    evaluator_steps: OrNull(TargetSchema),
    repeats: Type.Integer({ minimum: 1 }),
    concurrency: OrNull(Concurrency),
  }, Open),
}, { ...Open, description: "A run told by the revisions it evaluates (SimpleEvaluation)" });

export const SimpleQueueRecord = Type.Object({
  id: Id, flags: Labels, tags: Labels, meta: Labels, ...header, ...created, ...archived, status: StatusSchema,
  data: Type.Object({
    kind: OrNull(Type.Union(["queries", "testsets", "traces", "testcases"].map((k) => Type.Literal(k)))),
    queries: OrNull(Type.Array(Id)),
    testsets: OrNull(Type.Array(Id)),
    assignments: OrNull(Type.Array(Type.Array(Id))),
    repeats: OrNull(Type.Integer({ minimum: 1 })),
    settings: OrNull(Type.Object({ batch_size: OrNull(Type.Integer()), batch_offset: OrNull(Type.Integer()) }, Open)),
  }, Open),
  run_id: Id,
}, { ...Open, description: "A queue and its run, made in one call (SimpleQueue)" });

/** `{count, [key]: record | null}`: one entity, null when it is not the caller's. */
export const oneOf = (key: string, record: TSchema) => Type.Object({ count: Type.Integer(), [key]: OrNull(record) }, Open);

/** `{count, [key]: [records]}`, with `windowing` (the next page's cursor, or null) on queries. */
export const manyOf = (key: string, record: TSchema) =>
  Type.Object({ count: Type.Integer(), [key]: Type.Array(record), windowing: Type.Optional(OrNull(WindowingSchema)) }, Open);

/** `{count, [key]: [ids]}`: the ids a delete removed. */
export const idsOf = (key: string) => Type.Object({ count: Type.Integer(), [key]: Type.Array(Id) }, Open);

/** `{count, [key]: id | null}`: the id a delete removed, null when there was none. */
export const idOf = (key: string) => Type.Object({ count: Type.Integer(), [key]: OrNull(Id) }, Open);
