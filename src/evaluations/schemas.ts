import { type TArray, Type, type TSchema } from "typebox";
import { FreeObject, Nullable, Uuid, WindowingSchema } from "../schema-parts.ts";
import { RunDataSchema, StatusSchema } from "./entities/record-schemas.ts";

/*
 * Request bodies of the evaluation routes, in the reference's shapes (`api/oss/src/apis/fastapi/evaluations/
 * models.py`). Envelopes ignore fields they do not know, as the reference's models do.
 */

const Open = { additionalProperties: true } as const;
/** Most items one create, edit or delete request may carry. */
export const MAX_BATCH = 10_000;

const Labels = Nullable(Type.Record(Type.String(), Type.Unknown()));
const metadata = { flags: Labels, tags: Labels, meta: Labels, version: Nullable(Type.String()) };
const timing = { interval: Nullable(Type.Integer()), timestamp: Nullable(Type.String({ format: "date-time" })) };
const list = <T extends TSchema>(item: T) => Type.Array(item, { maxItems: MAX_BATCH });
const ids = <K extends string>(name: K) => Type.Object({ [name]: list(Uuid) } as Record<K, TArray<typeof Uuid>>, Open);
const query = <K extends string>(name: K) => {
  const filter = { [name]: Nullable(FreeObject) } as Record<K, ReturnType<typeof Nullable<typeof FreeObject>>>;
  return Type.Object({ ...filter, windowing: Nullable(WindowingSchema) }, Open);
};

const RunFields = {
  ...metadata,
  name: Nullable(Type.String({ maxLength: 1024 })),
  description: Nullable(Type.String({ maxLength: 65536 })),
  status: Nullable(StatusSchema),
  data: Nullable(RunDataSchema),
};
const RunCreate = Type.Object(RunFields, Open);
const RunEdit = Type.Object({ id: Nullable(Uuid), ...RunFields }, Open);

const ScenarioFields = { ...metadata, ...timing, status: Nullable(StatusSchema) };
const ScenarioCreate = Type.Object({ ...ScenarioFields, run_id: Uuid }, Open);
const ScenarioEdit = Type.Object({ id: Nullable(Uuid), ...ScenarioFields }, Open);

const resultFields = {
  ...metadata, ...timing,
  hash_id: Nullable(Uuid),
  trace_id: Nullable(Type.String({ maxLength: 128 })),
  testcase_id: Nullable(Uuid),
  error: Nullable(FreeObject),
  status: Nullable(StatusSchema),
  repeat_idx: Nullable(Type.Integer({ minimum: 0 })),
  step_key: Type.String({ minLength: 1, maxLength: 512 }),
  scenario_id: Uuid,
};
const ResultCreate = Type.Object({ ...resultFields, run_id: Uuid }, Open);

const MetricsCreate = Type.Object({
  ...metadata, ...timing,
  status: Nullable(StatusSchema),
  data: Nullable(FreeObject),
  scenario_id: Nullable(Uuid),
  run_id: Uuid,
}, Open);

export const RunsCreateBody = Type.Object({ runs: list(RunCreate) }, Open);
export const RunsEditBody = Type.Object({ runs: list(RunEdit) }, Open);
export const RunEditBody = Type.Object({ run: RunEdit }, Open);
export const RunIdsBody = ids("run_ids");
export const RunQueryBody = query("run");
export const CloseQuery = Type.Object({ status: Nullable(StatusSchema) }, Open);

export const ScenariosCreateBody = Type.Object({ scenarios: list(ScenarioCreate) }, Open);
export const ScenariosEditBody = Type.Object({ scenarios: list(ScenarioEdit) }, Open);
export const ScenarioEditBody = Type.Object({ scenario: ScenarioEdit }, Open);
export const ScenarioIdsBody = ids("scenario_ids");
export const ScenarioQueryBody = query("scenario");

export const ResultsSetBody = Type.Object({ results: list(ResultCreate) }, Open);
/** `/simple/evaluations/{id}/populate`: the run is the path's, so each result may leave `run_id` out. */
export const PopulateBody = Type.Object({ results: list(Type.Object({ ...resultFields, run_id: Nullable(Uuid) }, Open)) }, Open);
export const ResultIdsBody = ids("result_ids");
export const ResultQueryBody = query("result");

export const MetricsSetBody = Type.Object({ metrics: list(MetricsCreate) }, Open);
export const MetricsIdsBody = ids("metrics_ids");
export const MetricsQueryBody = query("metrics");
export const MetricsRefreshBody = Type.Object({
  metrics: Type.Object({
    run_id: Nullable(Uuid),
    run_ids: Nullable(list(Uuid)),
    scenario_id: Nullable(Uuid),
    scenario_ids: Nullable(list(Uuid)),
  }, Open),
}, Open);

export const AddScenariosBody = Type.Object({
  count: Type.Integer({ minimum: 0, maximum: MAX_BATCH }),
  timestamp: Nullable(Type.String({ format: "date-time" })),
}, Open);

// Queues: a run's scenarios handed to users (`data.user_ids`: one list of users per repeat).
const QueueData = Type.Object({
  user_ids: Nullable(Type.Array(Type.Array(Uuid, { maxItems: 1000 }), { maxItems: 100 })),
  scenario_ids: Nullable(list(Uuid)),
  step_keys: Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 512 }), { maxItems: 1000 })),
  batch_size: Nullable(Type.Integer({ minimum: 1 })),
  batch_offset: Nullable(Type.Integer({ minimum: 0 })),
}, Open);
const QueueFlags = Nullable(Type.Object({
  is_default: Nullable(Type.Boolean()), is_sequential: Nullable(Type.Boolean()),
}, Open));
const QueueFields = {
  ...metadata,
  flags: QueueFlags,
  name: Nullable(Type.String({ maxLength: 1024 })),
  description: Nullable(Type.String({ maxLength: 65536 })),
  status: Nullable(StatusSchema),
  data: Nullable(QueueData),
};
const QueueEdit = Type.Object({ id: Nullable(Uuid), ...QueueFields }, Open);
const QueueCreate = Type.Object({ ...QueueFields, run_id: Uuid }, Open);
export const QueuesCreateBody = Type.Object({ queues: list(QueueCreate) }, Open);
export const QueuesEditBody = Type.Object({ queues: list(QueueEdit) }, Open);
export const QueueEditBody = Type.Object({ queue: QueueEdit }, Open);
export const QueueIdsBody = ids("queue_ids");
export const QueueQueryBody = query("queue");
const UsersFilter = Nullable(Type.Object({
  id: Nullable(Uuid), user_id: Nullable(Uuid), user_ids: Nullable(list(Uuid)),
}, Open));
/** The scenarios of a queue by their status: `status`, or any of `statuses`. */
const StatusFilter = Nullable(Type.Object({
  status: Nullable(Type.String()), statuses: Nullable(Type.Array(Type.String(), { maxItems: 100 })),
}, Open));
export const QueueScenariosQueryBody = Type.Object({
  queue: UsersFilter, scenario: StatusFilter, windowing: Nullable(WindowingSchema),
}, Open);

const Target = Nullable(Type.Union([
  list(Uuid),
  Type.Record(Type.String({ format: "uuid" }), Type.Union(["human", "auto", "custom"].map((o) => Type.Literal(o)))),
]));
export const SimpleQueueCreateBody = Type.Object({
  queue: Type.Object({
    ...metadata,
    name: Nullable(Type.String({ maxLength: 1024 })),
    description: Nullable(Type.String({ maxLength: 65536 })),
    status: Nullable(StatusSchema),
    data: Type.Object({
      kind: Nullable(Type.Union(["queries", "testsets", "traces", "testcases"].map((k) => Type.Literal(k)))),
      queries: Nullable(list(Uuid)),
      testsets: Nullable(list(Uuid)),
      evaluators: Target,
      repeats: Nullable(Type.Integer({ minimum: 1, maximum: 100 })),
      assignments: Nullable(Type.Array(Type.Array(Uuid, { maxItems: 1000 }), { maxItems: 100 })),
      step_keys: Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 512 }), { maxItems: 1000 })),
      settings: Nullable(Type.Object({
        batch_size: Nullable(Type.Integer({ minimum: 1 })), batch_offset: Nullable(Type.Integer({ minimum: 0 })),
      }, Open)),
    }, Open),
  }, Open),
}, Open);
export const SimpleQueueQueryBody = query("queue");
export const SimpleQueueScenariosQueryBody = QueueScenariosQueryBody;
export const SimpleQueueTestcasesBody = Type.Object({ testcase_ids: list(Uuid) }, Open);
export const SimpleQueueTracesBody = Type.Object({ trace_ids: list(Type.String({ maxLength: 64 })) }, Open);
