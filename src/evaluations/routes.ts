import type { FastifyInstance, FastifyRequest } from "fastify";
import type { TSchema } from "typebox";
import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import type { AppContext } from "../context.ts";
import { documentationOnly } from "../http/openapi.ts";
import { IdParam } from "../schema-parts.ts";
import type { Windowing } from "../versioning/windowing.ts";
import { deleteRows, fetchRows, queryRows, type EntityTable, type Row } from "./entities/entity-table.ts";
import { refreshMetrics, setMetrics } from "./metrics/metrics.ts";
import { idOf, idsOf, manyOf, MetricsRecord, oneOf, ResultRecord, RunRecord, ScenarioRecord } from "./entities/record-schemas.ts";
import { setResults } from "./entities/results.ts";
import { beforeDirectWrite } from "./execution/run-chunks.ts";
import { assertOpenRuns, createRuns, deleteRuns, editRun, setRunsClosed } from "./entities/runs.ts";
import { addScenarios, createScenarios, editScenario, runOf } from "./entities/scenarios.ts";
import * as s from "./schemas.ts";
import { metrics, results, runs, scenarios } from "./entities/tables.ts";
import { editWithoutId } from "./errors.ts";

type Body = Record<string, any>;
const one = (name: string, row: Row | null | undefined) => ({ count: row ? 1 : 0, [name]: row ?? null });
const many = (name: string, rows: Row[], windowing?: Windowing | null) => ({
  count: rows.length, [name]: rows, ...(windowing === undefined ? {} : { windowing }),
});
const tags = ["Evaluations"];

// Answers as documented, each entity with its fields (record-schemas.ts).
const RECORD: Record<string, TSchema> = {
  run: RunRecord, runs: RunRecord, scenario: ScenarioRecord, scenarios: ScenarioRecord,
  result: ResultRecord, results: ResultRecord, metrics: MetricsRecord,
};
const answers = (schema: object) => documentationOnly({ response: { 200: schema } });
const answersOne = (key: string) => answers(oneOf(key, RECORD[key]!));
const answersMany = (key: string) => answers(manyOf(key, RECORD[key]!));
const answersIds = (key: string) => answers(idsOf(key));
const answersId = (key: string) => answers(idOf(key));

/**
 * The reference's evaluation entities over HTTP: runs, scenarios, results and metrics, created in batches,
 * edited, queried and deleted. An id that is not the caller's reads as `count: 0`; a write into a closed
 * run is a 409.
 */
export async function evaluationRoutes(app: FastifyInstance, ctx: AppContext) {
  const { db } = ctx;

  // Runs
  app.post("/evaluations/runs/", { schema: { tags, summary: "Create runs", body: s.RunsCreateBody }, config: answersMany("runs") }, async (req) => {
    return many("runs", await db.transaction((tx) => createRuns(tx, req.scope, (req.body as Body).runs)));
  });
  app.patch("/evaluations/runs/", { schema: { tags, summary: "Edit runs", body: s.RunsEditBody }, config: answersMany("runs") }, async (req) => {
    const edits = (req.body as Body).runs as Row[];
    return many("runs", await db.transaction((tx) => editEach(tx, req.scope, "run", edits, editRun)));
  });
  app.delete("/evaluations/runs/", { schema: { tags, summary: "Delete runs", body: s.RunIdsBody }, config: answersIds("run_ids") }, async (req) => {
    const ids = await deleteRuns(db, req.scope, (req.body as Body).run_ids);
    return { count: ids.length, run_ids: ids };
  });
  app.post("/evaluations/runs/query", { schema: { tags, summary: "Query runs", body: s.RunQueryBody }, config: answersMany("runs") }, async (req) => {
    const { run, windowing } = req.body as Body;
    const page = await queryRows(db, req.scope, runs, run, windowing);
    return many("runs", page.items, page.windowing);
  });
  for (const [verb, closed] of [["close", true], ["open", false]] as const) {
    app.post(`/evaluations/runs/${verb}`, { schema: { tags, summary: `${verb === "close" ? "Close" : "Reopen"} runs`, body: s.RunIdsBody }, config: answersMany("runs") }, async (req) => {
      const ids = (await setRunsClosed(db, req.scope, (req.body as Body).run_ids, closed)).map((r) => r.id as string);
      return many("runs", await fetchRows(db, req.scope, runs, ids));
    });
    app.post(`/evaluations/runs/:run_id/${verb}`, {
      schema: { tags, summary: `${verb === "close" ? "Close" : "Reopen"} a run`, params: IdParam("run_id"), querystring: s.CloseQuery },
      config: answersOne("run"),
    }, async (req) => {
      const { run_id } = req.params as Body;
      const status = closed ? (req.query as Body).status : null;
      const [done] = await setRunsClosed(db, req.scope, [run_id], closed, status);
      return one("run", done ? (await fetchRows(db, req.scope, runs, [run_id]))[0] : null);
    });
  }
  app.get("/evaluations/runs/:run_id", { schema: { tags, summary: "Fetch a run", params: IdParam("run_id") }, config: answersOne("run") }, async (req) => {
    return one("run", (await fetchRows(db, req.scope, runs, [(req.params as Body).run_id]))[0]);
  });
  app.patch("/evaluations/runs/:run_id", { schema: { tags, summary: "Edit a run", params: IdParam("run_id"), body: s.RunEditBody }, config: answersOne("run") }, async (req) => {
    const { run_id } = req.params as Body;
    return one("run", await db.transaction((tx) => editRun(tx, req.scope, run_id, (req.body as Body).run)));
  });
  app.delete("/evaluations/runs/:run_id", { schema: { tags, summary: "Delete a run", params: IdParam("run_id") }, config: answersId("run_id") }, async (req) => {
    const [id] = await deleteRuns(db, req.scope, [(req.params as Body).run_id]);
    return { count: id ? 1 : 0, run_id: id ?? null };
  });

  // Scenarios
  app.post("/evaluations/scenarios/", { schema: { tags, summary: "Create scenarios", body: s.ScenariosCreateBody }, config: answersMany("scenarios") }, async (req) => {
    return many("scenarios", await db.transaction((tx) => createScenarios(tx, req.scope, (req.body as Body).scenarios)));
  });
  app.patch("/evaluations/scenarios/", { schema: { tags, summary: "Edit scenarios", body: s.ScenariosEditBody }, config: answersMany("scenarios") }, async (req) => {
    const edits = (req.body as Body).scenarios as Row[];
    return many("scenarios", await db.transaction((tx) => editEach(tx, req.scope, "scenario", edits, editScenario)));
  });
  app.delete("/evaluations/scenarios/", { schema: { tags, summary: "Delete scenarios", body: s.ScenarioIdsBody }, config: answersIds("scenario_ids") }, async (req) => {
    const ids = await deleteInOpenRuns(ctx, req.scope, scenarios, (req.body as Body).scenario_ids);
    return { count: ids.length, scenario_ids: ids };
  });
  app.post("/evaluations/scenarios/query", { schema: { tags, summary: "Query scenarios", body: s.ScenarioQueryBody }, config: answersMany("scenarios") }, async (req) => {
    const { scenario, windowing } = req.body as Body;
    const page = await queryRows(db, req.scope, scenarios, scenario, windowing);
    return many("scenarios", page.items, page.windowing);
  });
  app.get("/evaluations/scenarios/:scenario_id", { schema: { tags, summary: "Fetch a scenario", params: IdParam("scenario_id") }, config: answersOne("scenario") }, async (req) => {
    return one("scenario", (await fetchRows(db, req.scope, scenarios, [(req.params as Body).scenario_id]))[0]);
  });
  app.patch("/evaluations/scenarios/:scenario_id", {
    schema: { tags, summary: "Edit a scenario", params: IdParam("scenario_id"), body: s.ScenarioEditBody },
    config: answersOne("scenario"),
  }, async (req) => {
    const id = (req.params as Body).scenario_id;
    return one("scenario", await db.transaction((tx) => editScenario(tx, req.scope, id, (req.body as Body).scenario)));
  });
  app.delete("/evaluations/scenarios/:scenario_id", { schema: { tags, summary: "Delete a scenario", params: IdParam("scenario_id") }, config: answersId("scenario_id") }, async (req) => {
    const [id] = await deleteInOpenRuns(ctx, req.scope, scenarios, [(req.params as Body).scenario_id]);
    return { count: id ? 1 : 0, scenario_id: id ?? null };
  });

  // Results
  app.route({
    method: ["POST", "PUT", "PATCH"],
    url: "/evaluations/results/",
    schema: { tags, summary: "Set results (one per scenario, step and repeat)", body: s.ResultsSetBody },
    config: answersMany("results"),
    handler: async (req: FastifyRequest) =>
      many("results", await db.transaction((tx) => setResults(tx, req.scope, (req.body as Body).results))),
  });
  app.delete("/evaluations/results/", { schema: { tags, summary: "Delete results", body: s.ResultIdsBody }, config: answersIds("result_ids") }, async (req) => {
    const ids = await deleteInOpenRuns(ctx, req.scope, results, (req.body as Body).result_ids);
    return { count: ids.length, result_ids: ids };
  });
  app.post("/evaluations/results/query", { schema: { tags, summary: "Query results", body: s.ResultQueryBody }, config: answersMany("results") }, async (req) => {
    const { result, windowing } = req.body as Body;
    const page = await queryRows(db, req.scope, results, result, windowing);
    return many("results", page.items, page.windowing);
  });
  app.get("/evaluations/results/:result_id", { schema: { tags, summary: "Fetch a result", params: IdParam("result_id") }, config: answersOne("result") }, async (req) => {
    return one("result", (await fetchRows(db, req.scope, results, [(req.params as Body).result_id]))[0]);
  });
  app.delete("/evaluations/results/:result_id", { schema: { tags, summary: "Delete a result", params: IdParam("result_id") }, config: answersId("result_id") }, async (req) => {
    const [id] = await deleteInOpenRuns(ctx, req.scope, results, [(req.params as Body).result_id]);
    return { count: id ? 1 : 0, result_id: id ?? null };
  });

  // Metrics
  app.post("/evaluations/metrics/refresh", { schema: { tags, summary: "Recompute metrics from results", body: s.MetricsRefreshBody }, config: answersMany("metrics") }, async (req) => {
    const m = (req.body as Body).metrics ?? {};
    // As the reference dispatches: run_ids when given, else run_id; neither refreshes nothing.
    const runIds: string[] = m.run_ids?.length ? m.run_ids : m.run_id ? [m.run_id] : [];
    const scenarioIds: (string | null)[] = [...(m.scenario_ids ?? []), ...(m.scenario_id ? [m.scenario_id] : [])];
    if (runIds.length === 0) return many("metrics", []);
    await ctx.traces?.flush(); // results name traces that may still be on their way to the table
    const rows: Row[] = [];
    for (const runId of runIds) {
      for (const scenarioId of scenarioIds.length ? scenarioIds : [null]) {
        const row = await refreshMetrics(db, req.scope, runId, scenarioId);
        if (row) rows.push(row);
      }
    }
    return many("metrics", rows);
  });
  app.route({
    method: ["POST", "PUT", "PATCH"],
    url: "/evaluations/metrics/",
    schema: { tags, summary: "Set metrics (one per run, scenario and time bucket)", body: s.MetricsSetBody },
    config: answersMany("metrics"),
    handler: async (req: FastifyRequest) =>
      many("metrics", await db.transaction((tx) => setMetrics(tx, req.scope, (req.body as Body).metrics))),
  });
  app.delete("/evaluations/metrics/", { schema: { tags, summary: "Delete metrics", body: s.MetricsIdsBody }, config: answersIds("metrics_ids") }, async (req) => {
    const ids = await deleteInOpenRuns(ctx, req.scope, metrics, (req.body as Body).metrics_ids);
    return { count: ids.length, metrics_ids: ids };
  });
  app.post("/evaluations/metrics/query", { schema: { tags, summary: "Query metrics", body: s.MetricsQueryBody }, config: answersMany("metrics") }, async (req) => {
    const { metrics: filter, windowing } = req.body as Body;
    const page = await queryRows(db, req.scope, metrics, filter, windowing);
    return many("metrics", page.items, page.windowing);
  });
  // The reference answers a metric by id as a list, and its deletion with the list of ids.
  app.get("/evaluations/metrics/:metrics_id", {
    schema: { tags, summary: "Fetch metrics", params: IdParam("metrics_id") }, config: answersMany("metrics"),
  }, async (req) => {
    return many("metrics", await fetchRows(db, req.scope, metrics, [(req.params as Body).metrics_id]));
  });
  app.delete("/evaluations/metrics/:metrics_id", {
    schema: { tags, summary: "Delete metrics", params: IdParam("metrics_id") }, config: answersIds("metrics_ids"),
  }, async (req) => {
    const ids = await deleteInOpenRuns(ctx, req.scope, metrics, [(req.params as Body).metrics_id]);
    return { count: ids.length, metrics_ids: ids };
  });

  // The reference's simple-evaluation shortcut a client-driven run uses to add its scenarios.
  app.post("/simple/evaluations/:evaluation_id/scenarios/add", {
    schema: { tags, summary: "Append empty scenarios to a run", params: IdParam("evaluation_id"), body: s.AddScenariosBody },
    config: answersMany("scenarios"),
  }, async (req) => {
    const { count, timestamp } = req.body as Body;
    const rows = await db.transaction((tx) => addScenarios(tx, req.scope, (req.params as Body).evaluation_id, count, timestamp));
    return many("scenarios", rows);
  });
  app.post("/simple/evaluations/:evaluation_id/populate", {
    schema: { tags, summary: "Store results of a run", params: IdParam("evaluation_id"), body: s.PopulateBody },
    config: answersMany("results"),
  }, async (req) => {
    const runId = (req.params as Body).evaluation_id;
    const items = ((req.body as Body).results as Row[]).map((r) => ({ ...r, run_id: runId }));
    return many("results", await db.transaction((tx) => setResults(tx, req.scope, items)));
  });
}

/** Deletes rows that belong to open runs (a closed run keeps what it has: 409). */
async function deleteInOpenRuns(ctx: AppContext, scope: Scope, t: EntityTable, ids: string[]): Promise<string[]> {
  return ctx.db.transaction(async (tx) => {
    const runIds: string[] = [];
    for (const id of ids) {
      const runId = await runOf(tx, scope, t.table, id);
      if (runId) runIds.push(runId);
    }
    if (runIds.length) await assertOpenRuns(tx, scope, runIds);
    if (runIds.length && t !== metrics) await beforeDirectWrite(tx, runIds);
    return deleteRows(tx, scope, t, ids);
  });
}

/** Applies edits that each name their row by id, in one transaction; rows that are not the caller's are left out. */
async function editEach(
  tx: Queryable, scope: Scope, noun: string, edits: Row[], edit: (tx: Queryable, scope: Scope, id: string, e: Row) => Promise<Row | null>,
): Promise<Row[]> {
  const out: Row[] = [];
  for (const e of edits) {
    if (!e.id) throw editWithoutId(noun);
    const row = await edit(tx, scope, e.id as string, e);
    if (row) out.push(row);
  }
  return out;
}
