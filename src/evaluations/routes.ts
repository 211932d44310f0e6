import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import type { Scope } from "../accounts/scope.ts";
import type { Database } from "../db/database.ts";
import type { AppContext } from "../context.ts";
import { IdParam } from "../schema-parts.ts";
import { deleteRows, fetchRows, type EntityTable, type Row } from "./entities/entity-table.ts";
import { doc, entityRoutes, many, one } from "./entities/entity-routes.ts";
import { refreshMetrics, setMetrics } from "./metrics/metrics.ts";
import { refreshScenarioMetrics } from "./metrics/scenario-metrics.ts";
import { manyOf, MetricsRecord, oneOf, ResultRecord, RunRecord, ScenarioRecord } from "./entities/record-schemas.ts";
import { setResults } from "./entities/results.ts";
import { beforeDirectWrite } from "./execution/run-chunks.ts";
import { assertOpenRuns, createRuns, deleteRuns, editRun, setRunsClosed } from "./entities/runs.ts";
import { addScenarios, createScenarios, editScenario, runOf } from "./entities/scenarios.ts";
import * as s from "./schemas.ts";
import { metrics, results, runs, scenarios } from "./entities/tables.ts";

/** Closing and reopening runs, by ids and by path: routes of the run collection beyond its CRUD. */
function runStateRoutes(instance: FastifyInstance, { db }: AppContext) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  for (const [verb, closed] of [["close", true], ["open", false]] as const) {
    const title = verb === "close" ? "Close" : "Reopen";
    const byIds = doc(`${title} runs`, manyOf("runs", RunRecord), { body: s.RunIdsBody });
    app.post(`/evaluations/runs/${verb}`, byIds, async (req) => {
      const ids = (await setRunsClosed(db, req.scope, req.body.run_ids, closed)).map((r) => r.id as string);
      return many("runs", await fetchRows(db, req.scope, runs, ids));
    });
    const byPath = doc(`${title} a run`, oneOf("run", RunRecord), {
      params: IdParam("run_id"), querystring: s.CloseQuery,
    });
    app.post(`/evaluations/runs/:run_id/${verb}`, byPath, async (req) => {
      const { run_id } = req.params;
      const status = closed ? req.query.status : null;
      const [done] = await setRunsClosed(db, req.scope, [run_id], closed, status);
      return one("run", done ? (await fetchRows(db, req.scope, runs, [run_id]))[0] : null);
    });
  }
}

/**
 * Recomputes metrics from results, as the reference dispatches: each of run_ids' global rows when given, else run_id's
 * rows of scenario_ids (or scenario_id), else run_id's global row.
 */
function metricsRefreshRoute(instance: FastifyInstance, ctx: AppContext) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = ctx;
  const answer = manyOf("metrics", MetricsRecord);
  const refresh = doc("Recompute metrics from results", answer, { body: s.MetricsRefreshBody });
  app.post("/evaluations/metrics/refresh", refresh, async (req) => {
    const m = req.body.metrics;
    // Neither run_ids nor run_id refreshes nothing.
    const runIds = m.run_ids?.length ? m.run_ids : m.run_id ? [m.run_id] : [];
    if (runIds.length === 0) return many("metrics", []);
    await ctx.traces?.flush(); // results name traces that may still be on their way to the table
    const scenarioIds = m.scenario_ids?.length ? m.scenario_ids : m.scenario_id ? [m.scenario_id] : [];
    if (!m.run_ids?.length && scenarioIds.length > 0) {
      return many("metrics", await refreshScenarioMetrics(db, req.scope, runIds[0]!, scenarioIds));
    }
    const rows: Row[] = [];
    for (const runId of runIds) {
      const row = await refreshMetrics(db, req.scope, runId);
      if (row) rows.push(row);
    }
    return many("metrics", rows);
  });
}

/**
 * The reference's evaluation entities over HTTP: runs, scenarios, results and metrics, created in batches,
 * edited, queried and deleted. An id that is not the caller's reads as `count: 0`; a write into a closed
 * run is a 409.
 */
export async function evaluationRoutes(app: FastifyInstance, ctx: AppContext) {
  const { db } = ctx;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  entityRoutes({
    table: runs, path: "/evaluations/runs", one: "run", many: "runs", aRow: "a run", record: RunRecord,
    bodies: {
      create: s.RunsCreateBody, edits: s.RunsEditBody, edit: s.RunEditBody, ids: s.RunIdsBody, query: s.RunQueryBody,
    },
    create: { write: createRuns },
    edit: editRun,
    remove: deleteRuns,
    collection: runStateRoutes,
  })(app, ctx);
  entityRoutes({
    table: scenarios, path: "/evaluations/scenarios", one: "scenario", many: "scenarios", aRow: "a scenario",
    record: ScenarioRecord,
    bodies: {
      create: s.ScenariosCreateBody, edits: s.ScenariosEditBody, edit: s.ScenarioEditBody, ids: s.ScenarioIdsBody,
      query: s.ScenarioQueryBody,
    },
    create: { write: createScenarios },
    edit: editScenario,
    remove: (db, scope, ids) => deleteInOpenRuns(db, scope, scenarios, ids),
  })(app, ctx);
  const set = ["POST", "PUT", "PATCH"] as const;
  entityRoutes({
    table: results, path: "/evaluations/results", one: "result", many: "results", aRow: "a result",
    record: ResultRecord,
    bodies: { create: s.ResultsSetBody, ids: s.ResultIdsBody, query: s.ResultQueryBody },
    create: { write: setResults, summary: "Set results (one per scenario, step and repeat)", methods: [...set] },
    remove: (db, scope, ids) => deleteInOpenRuns(db, scope, results, ids),
  })(app, ctx);
  metricsRefreshRoute(app, ctx);
  // The reference answers a metric by id as a list, and its deletion with the list of ids.
  entityRoutes({
    table: metrics, path: "/evaluations/metrics", one: "metrics", many: "metrics", aRow: "metrics",
    record: MetricsRecord,
    bodies: { create: s.MetricsSetBody, ids: s.MetricsIdsBody, query: s.MetricsQueryBody },
    create: { write: setMetrics, summary: "Set metrics (one per run, scenario and time bucket)", methods: [...set] },
    remove: (db, scope, ids) => deleteInOpenRuns(db, scope, metrics, ids),
    byIdAsList: true,
  })(app, ctx);

  // The reference's simple-evaluation shortcut a client-driven run uses to add its scenarios.
  const evaluation = IdParam("evaluation_id");
  const appended = manyOf("scenarios", ScenarioRecord);
  const append = doc("Append empty scenarios to a run", appended, { params: evaluation, body: s.AddScenariosBody });
  api.post("/simple/evaluations/:evaluation_id/scenarios/add", append, async (req) => {
    const { count, timestamp } = req.body;
    const runId = req.params.evaluation_id;
    const rows = await db.transaction((tx) => addScenarios(tx, req.scope, runId, count, timestamp));
    return many("scenarios", rows);
  });
  const populate = doc("Store results of a run", manyOf("results", ResultRecord), {
    params: evaluation, body: s.PopulateBody,
  });
  api.post("/simple/evaluations/:evaluation_id/populate", populate, async (req) => {
    const runId = req.params.evaluation_id;
    const items = req.body.results.map((r) => ({ ...r, run_id: runId }));
    return many("results", await db.transaction((tx) => setResults(tx, req.scope, items)));
  });
}

/** Deletes rows that belong to open runs (a closed run keeps what it has: 409). */
async function deleteInOpenRuns(db: Database, scope: Scope, t: EntityTable, ids: string[]): Promise<string[]> {
  return db.transaction(async (tx) => {
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
