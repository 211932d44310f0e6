import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import type { AppContext } from "../context.ts";
import { documentationOnly } from "../http/openapi.ts";
import { FreeObject, IdParam, Nullable, Uuid, WindowingSchema } from "../schema-parts.ts";
import { COMPARE_LIMIT, compareRuns } from "./metrics/compare.ts";
import { idOf, manyOf, oneOf, ResultRecord, RunRecord, SimpleEvaluationRecord } from "./entities/record-schemas.ts";
import { probeSlice, processSlice, pruneSlice, removeScenarios, setRepeats } from "./run-slices.ts";
import { fetchRows, queryRows, type Row } from "./entities/entity-table.ts";
import { deleteRuns, editRun, setRunsClosed } from "./entities/runs.ts";
import {
  createSimpleEvaluation, simpleEvaluationRecord, startEvaluation, stopEvaluation, type SimpleEvaluationInput,
} from "./simple-evaluations.ts";
import { evaluationProgress } from "./metrics/progress.ts";
import { runs } from "./entities/tables.ts";

const Open = { additionalProperties: true } as const;
const answers = (schema: object) => documentationOnly({ response: { 200: schema } });
const OneEvaluation = answers(oneOf("evaluation", SimpleEvaluationRecord));

const Target = Type.Union([
  Type.Array(Uuid, { maxItems: 100 }),
  Type.Record(Type.String({ format: "uuid" }), Type.Union([Type.Literal("custom"), Type.Literal("human"), Type.Literal("auto")])),
]);
const Evaluation = Type.Object({
  name: Nullable(Type.String({ maxLength: 1024 })),
  description: Nullable(Type.String({ maxLength: 65536 })),
  flags: Nullable(FreeObject),
  tags: Nullable(FreeObject),
  meta: Nullable(FreeObject),
  data: Nullable(Type.Object({
    status: Nullable(Type.String()),
    testset_steps: Nullable(Target),
    application_steps: Nullable(Target),
    evaluator_steps: Nullable(Target),
    repeats: Nullable(Type.Integer({ minimum: 1, maximum: 100 })),
    concurrency: Nullable(Type.Object({ batch_size: Nullable(Type.Integer({ minimum: 1, maximum: 256 })) }, Open)),
  }, Open)),
}, Open);
const CreateBody = Type.Object({ evaluation: Evaluation }, Open);
const EditBody = Type.Object({ evaluation: Evaluation }, Open);
const QueryBody = Type.Object({ evaluation: Nullable(FreeObject), windowing: Nullable(WindowingSchema) }, Open);
const Id = IdParam("evaluation_id");
const SliceFields = {
  scenario_ids: Nullable(Type.Array(Uuid, { maxItems: 10_000 })),
  step_keys: Nullable(Type.Array(Type.String({ maxLength: 1024 }), { maxItems: 1000 })),
  repeat_idxs: Nullable(Type.Array(Type.Integer({ minimum: 0, maximum: 1000 }), { maxItems: 1000 })),
};
const SliceBody = Type.Object(SliceFields, Open);
const ProcessBody = Type.Object({ ...SliceFields, overwrite: Nullable(Type.Boolean()) }, Open);
const RemoveScenariosBody = Type.Object({ scenario_ids: Type.Array(Uuid, { maxItems: 10_000 }) }, Open);
const RepeatsBody = Type.Object({ repeats: Type.Integer({ minimum: 1, maximum: 100 }) }, Open);
const NoBody = (description: string) => ({ type: "null", description });
const CompareBody = Type.Object({
  run_ids: Type.Array(Uuid, { minItems: 2, maxItems: 10 }),
  limit: Nullable(Type.Integer({ minimum: 0, maximum: COMPARE_LIMIT })),
  offset: Nullable(Type.Integer({ minimum: 0 })),
}, Open);

const tags = ["Evaluations"];
const one = (run: Row | null | undefined) => ({ count: run ? 1 : 0, evaluation: run ? simpleEvaluationRecord(run) : null });

/**
 * The reference's simple evaluations: a run made from revision ids, which the server executes (jobs
 * that any process takes) unless the client says it drives the run itself (`data.status: "running"`).
 */
export async function simpleEvaluationRoutes(instance: FastifyInstance, ctx: AppContext) {
  const { db } = ctx;
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const batchSize = ctx.config.evaluations.batchSize;
  const timing = { liveIntervalMs: ctx.config.evaluations.liveIntervalMs };
  const fetch = async (scope: Parameters<typeof fetchRows>[1], id: string) => (await fetchRows(db, scope, runs, [id]))[0] ?? null;

  app.post("/simple/evaluations/", { schema: { tags, summary: "Create and start an evaluation", body: CreateBody }, config: OneEvaluation }, async (req) => {
    const input: SimpleEvaluationInput = req.body.evaluation;
    return one(await db.transaction((tx) => createSimpleEvaluation(tx, req.scope, input, timing)));
  });
  app.post("/simple/evaluations/query", { schema: { tags, summary: "Query evaluations", body: QueryBody }, config: answers(manyOf("evaluations", SimpleEvaluationRecord)) }, async (req) => {
    const { evaluation, windowing } = req.body;
    const page = await queryRows(db, req.scope, runs, evaluation, windowing);
    return { count: page.items.length, evaluations: page.items.map(simpleEvaluationRecord), windowing: page.windowing };
  });
  app.get("/simple/evaluations/:evaluation_id", { schema: { tags, summary: "Fetch an evaluation", params: Id }, config: OneEvaluation }, async (req) => {
    return one(await fetch(req.scope, req.params.evaluation_id));
  });
  app.patch("/simple/evaluations/:evaluation_id", { schema: { tags, summary: "Rename or relabel an evaluation", params: Id, body: EditBody }, config: OneEvaluation }, async (req) => {
    const { name, description, tags: labels, meta } = req.body.evaluation;
    const edit = Object.fromEntries(Object.entries({ name, description, tags: labels, meta }).filter(([, v]) => v !== undefined));
    return one(await db.transaction((tx) => editRun(tx, req.scope, req.params.evaluation_id, edit)));
  });
  app.delete("/simple/evaluations/:evaluation_id", { schema: { tags, summary: "Delete an evaluation", params: Id }, config: answers(idOf("evaluation_id")) }, async (req) => {
    const [id] = await deleteRuns(db, req.scope, [req.params.evaluation_id]);
    return { count: id ? 1 : 0, evaluation_id: id ?? null };
  });
  app.post("/simple/evaluations/:evaluation_id/start", { schema: { tags, summary: "Start a stopped evaluation again", params: Id }, config: OneEvaluation }, async (req) => {
    const id = req.params.evaluation_id;
    return one(await db.transaction((tx) => startEvaluation(tx, req.scope, id, batchSize, timing)));
  });
  app.post("/simple/evaluations/:evaluation_id/stop", { schema: { tags, summary: "Stop an evaluation", params: Id }, config: OneEvaluation }, async (req) => {
    return one(await db.transaction((tx) => stopEvaluation(tx, req.scope, req.params.evaluation_id)));
  });
  for (const [verb, closed] of [["close", true], ["open", false]] as const) {
    app.post(`/simple/evaluations/:evaluation_id/${verb}`, { schema: { tags, summary: `${verb} an evaluation`, params: Id }, config: OneEvaluation }, async (req) => {
      const id = req.params.evaluation_id;
      const [done] = await setRunsClosed(db, req.scope, [id], closed);
      return one(done ? await fetch(req.scope, id) : null);
    });
  }
  // Slices of a run's existing scenarios, as the reference names them.
  app.post("/simple/evaluations/:evaluation_id/probe", {
    schema: { tags, summary: "Read the results in a slice of an evaluation", params: Id, body: SliceBody },
    config: answers(manyOf("results", ResultRecord)),
  }, async (req) => {
    const rows = await probeSlice(db, req.scope, req.params.evaluation_id, req.body);
    return { count: rows.length, results: rows };
  });
  app.post("/simple/evaluations/:evaluation_id/process", {
    schema: {
      tags, summary: "Invoke a slice of an evaluation again (missing or failed cells; all with overwrite)", params: Id,
      body: ProcessBody,
    },
    config: documentationOnly({ response: { 202: NoBody("Accepted: batches are queued; follow the evaluation") } }),
  }, async (req, reply) => {
    const runId = req.params.evaluation_id;
    await db.transaction((tx) => processSlice(tx, req.scope, runId, req.body, batchSize));
    return reply.status(202).send();
  });
  app.post("/simple/evaluations/:evaluation_id/prune", {
    schema: { tags, summary: "Delete the results in a slice of an evaluation", params: Id, body: SliceBody },
    config: documentationOnly({ response: { 204: NoBody("The slice's results are deleted, the metrics recomputed") } }),
  }, async (req, reply) => {
    await db.transaction((tx) => pruneSlice(tx, req.scope, req.params.evaluation_id, req.body));
    return reply.status(204).send();
  });
  app.post("/simple/evaluations/:evaluation_id/scenarios/remove", {
    schema: {
      tags, summary: "Remove scenarios of an evaluation with their results", params: Id, body: RemoveScenariosBody,
    },
    config: documentationOnly({ response: { 204: NoBody("The scenarios and their results are deleted") } }),
  }, async (req, reply) => {
    const { scenario_ids } = req.body;
    await db.transaction((tx) => removeScenarios(tx, req.scope, req.params.evaluation_id, scenario_ids));
    return reply.status(204).send();
  });
  app.post("/simple/evaluations/:evaluation_id/repeats/set", {
    schema: { tags, summary: "Set how many times each scenario of an evaluation runs", params: Id, body: RepeatsBody },
    config: answers(oneOf("run", RunRecord)),
  }, async (req) => {
    const runId = req.params.evaluation_id;
    const run = await db.transaction((tx) => setRepeats(tx, req.scope, runId, req.body.repeats));
    return { count: run ? 1 : 0, run: run ?? null };
  });
  app.post("/evaluations/runs/compare", {
    schema: { tags, summary: "Compare runs: metric deltas and the testcases whose results changed (Tessera)", body: CompareBody },
    config: answers(Type.Object({ count: Type.Integer(), comparison: FreeObject }, { additionalProperties: true })),
  }, async (req) => {
    const { run_ids, limit, offset } = req.body;
    const page = { limit: limit ?? undefined, offset: offset ?? undefined };
    return { count: 1, comparison: await compareRuns(db, req.scope, run_ids, page) };
  });
  app.get("/simple/evaluations/:evaluation_id/progress", {
    schema: { tags, summary: "How far an evaluation has come (Tessera)", params: Id },
    config: answers(Type.Object({ count: Type.Integer(), progress: Type.Union([FreeObject, Type.Null()]) }, { additionalProperties: true })),
  }, async (req) => {
    const progress = await evaluationProgress(db, req.scope, req.params.evaluation_id);
    return { count: progress ? 1 : 0, progress };
  });
}
