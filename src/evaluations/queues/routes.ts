import type { FastifyInstance } from "fastify";
import type { TSchema } from "typebox";
import type { AppContext } from "../../context.ts";
import { documentationOnly } from "../../http/openapi.ts";
import { IdParam } from "../../schema-parts.ts";
import type { Windowing } from "../../versioning/windowing.ts";
import { fetchRows, queryRows, type Row } from "../entities/entity-table.ts";
import { createQueues, deleteQueues, editQueue, queueScenarios, usersOf, withUsers } from "./queues.ts";
import { idOf, idsOf, manyOf, oneOf, QueueRecord, ScenarioRecord, SimpleQueueRecord } from "../entities/record-schemas.ts";
import * as s from "../schemas.ts";
import {
  addTestcases, addTraces, createSimpleQueue, deleteSimpleQueue, loadQueue, queueKind, simpleQueueRecord,
  type SimpleQueueInput,
} from "./simple-queues.ts";
import { queues, runs } from "../entities/tables.ts";
import { editWithoutId, queueIdMismatch } from "../errors.ts";

type Body = Record<string, any>;
const one = (name: string, row: Row | null | undefined) => ({ count: row ? 1 : 0, [name]: row ?? null });
const many = (name: string, rows: Row[], windowing?: Windowing | null) => ({
  count: rows.length, [name]: rows, ...(windowing === undefined ? {} : { windowing }),
});
const tags = ["Evaluations"];
/** A body's `queue.id`, when sent, must be the path's. */
const samePath = (params: Body, filter: Body | null | undefined) => {
  if (filter?.id && filter.id !== params.queue_id) {
    throw queueIdMismatch();
  }
};
const QueueParam = IdParam("queue_id");
/** A route's OpenAPI description, with the schema of its answer. */
const doc = (summary: string, answer: TSchema, parts: { body?: unknown; params?: unknown } = {}) => ({
  schema: { tags, summary, ...parts },
  config: documentationOnly({ response: { 200: answer } }),
});

/**
 * Annotation queues over HTTP, in the reference's shapes: `/evaluations/queues/…` (a run's scenarios
 * handed to users) and `/simple/queues/…` (a queue and its run made in one call, testcases sent to it).
 */
export async function queueRoutes(app: FastifyInstance, ctx: AppContext) {
  const { db } = ctx;

  app.post("/evaluations/queues/", doc("Create queues", manyOf("queues", QueueRecord), { body: s.QueuesCreateBody }), async (req) => {
    return many("queues", await db.transaction((tx) => createQueues(tx, req.scope, (req.body as Body).queues)));
  });
  app.patch("/evaluations/queues/", doc("Edit queues", manyOf("queues", QueueRecord), { body: s.QueuesEditBody }), async (req) => {
    const edited = await db.transaction(async (tx) => {
      const out: Row[] = [];
      for (const edit of (req.body as Body).queues as Row[]) {
        if (!edit.id) throw editWithoutId("queue");
        const row = await editQueue(tx, req.scope, edit.id as string, edit);
        if (row) out.push(row);
      }
      return out;
    });
    return many("queues", edited);
  });
  app.delete("/evaluations/queues/", doc("Delete queues", idsOf("queue_ids"), { body: s.QueueIdsBody }), async (req) => {
    const ids = await db.transaction((tx) => deleteQueues(tx, req.scope, (req.body as Body).queue_ids));
    return { count: ids.length, queue_ids: ids };
  });
  app.post("/evaluations/queues/query", doc("Query queues", manyOf("queues", QueueRecord), { body: s.QueueQueryBody }), async (req) => {
    const { queue, windowing } = req.body as Body;
    const page = await queryRows(db, req.scope, queues, queue, windowing);
    return many("queues", withUsers(page.items, usersOf(queue)), page.windowing);
  });
  app.get("/evaluations/queues/:queue_id", doc("Fetch a queue", oneOf("queue", QueueRecord), { params: QueueParam }), async (req) => {
    return one("queue", (await fetchRows(db, req.scope, queues, [(req.params as Body).queue_id]))[0]);
  });
  const defaultOf = doc("Fetch a run's default queue", oneOf("queue", QueueRecord), { params: IdParam("run_id") });
  app.get("/evaluations/runs/:run_id/queues/default", defaultOf, async (req) => {
    const filter = { run_id: (req.params as Body).run_id, flags: { is_default: true } };
    const page = await queryRows(db, req.scope, queues, filter, null);
    return one("queue", page.items[0]);
  });
  const editOne = doc("Edit a queue", oneOf("queue", QueueRecord), { params: QueueParam, body: s.QueueEditBody });
  app.patch("/evaluations/queues/:queue_id", editOne, async (req) => {
    const id = (req.params as Body).queue_id;
    return one("queue", await db.transaction((tx) => editQueue(tx, req.scope, id, (req.body as Body).queue)));
  });
  app.delete("/evaluations/queues/:queue_id", doc("Delete a queue", idOf("queue_id"), { params: QueueParam }), async (req) => {
    const [id] = await db.transaction((tx) => deleteQueues(tx, req.scope, [(req.params as Body).queue_id]));
    return { count: id ? 1 : 0, queue_id: id ?? null };
  });
  app.post("/evaluations/queues/:queue_id/scenarios/query", doc("The scenarios of a queue a user is assigned", manyOf("scenarios", ScenarioRecord), {
    params: QueueParam, body: s.QueueScenariosQueryBody,
  }), async (req) => {
    const { queue: filter, scenario, windowing } = req.body as Body;
    samePath(req.params as Body, filter);
    const [queue] = await fetchRows(db, req.scope, queues, [(req.params as Body).queue_id]);
    if (!queue) return many("scenarios", [], null);
    const page = await queueScenarios(db, req.scope, queue, usersOf(filter), scenario, windowing);
    return many("scenarios", page.items, page.windowing);
  });

  // Simple queues
  app.post("/simple/queues/", doc("Create a queue and its run", oneOf("queue", SimpleQueueRecord), { body: s.SimpleQueueCreateBody }), async (req) => {
    const input = (req.body as Body).queue as SimpleQueueInput;
    return one("queue", await db.transaction((tx) => createSimpleQueue(tx, req.scope, input)));
  });
  app.post("/simple/queues/query", doc("Query simple queues", manyOf("queues", SimpleQueueRecord), { body: s.SimpleQueueQueryBody }), async (req) => {
    const { queue: filter, windowing } = req.body as Body;
    const f = (filter ?? {}) as Body;
    const runIds = [...(f.run_ids ?? []), ...(f.run_id ? [f.run_id] : [])];
    const page = await queryRows(db, req.scope, queues, {
      name: f.name, tags: f.tags, meta: f.meta, ids: f.queue_ids, run_ids: runIds.length ? runIds : null,
    }, windowing);
    const rows = withUsers(page.items, usersOf(f));
    const runIdsOf = [...new Set(rows.map((q) => q.run_id as string))];
    const owners = new Map((await fetchRows(db, req.scope, runs, runIdsOf)).map((r) => [r.id, r]));
    const out = rows.flatMap((q) => {
      const run = owners.get(q.run_id);
      if (!run || (run.flags as { is_queue?: boolean } | null)?.is_queue !== true) return [];
      if (f.kind && queueKind(run) !== f.kind) return [];
      return [simpleQueueRecord(q, run)];
    });
    return many("queues", out, page.windowing);
  });
  app.get("/simple/queues/:queue_id", doc("Fetch a simple queue", oneOf("queue", SimpleQueueRecord), { params: QueueParam }), async (req) => {
    const found = await loadQueue(db, req.scope, (req.params as Body).queue_id);
    return one("queue", found ? simpleQueueRecord(found.queue, found.run) : null);
  });
  app.delete("/simple/queues/:queue_id", doc("Delete a simple queue", idOf("queue_id"), { params: QueueParam }), async (req) => {
    const id = await db.transaction((tx) => deleteSimpleQueue(tx, req.scope, (req.params as Body).queue_id));
    return { count: id ? 1 : 0, queue_id: id };
  });
  app.post("/simple/queues/:queue_id/testcases/", doc("Send testcases to a queue", idOf("queue_id"), {
    params: QueueParam, body: s.SimpleQueueTestcasesBody,
  }), async (req) => {
    const { queue_id } = req.params as Body;
    const id = await db.transaction((tx) => addTestcases(tx, req.scope, queue_id, (req.body as Body).testcase_ids));
    return { count: id ? 1 : 0, queue_id: id };
  });
  app.post("/simple/queues/:queue_id/traces/", doc("Send traces to a queue", idOf("queue_id"), {
    params: QueueParam, body: s.SimpleQueueTracesBody,
  }), async (req) => {
    const { queue_id } = req.params as Body;
    await ctx.traces?.flush(); // a trace just invoked may still be on its way to the table
    const id = await db.transaction((tx) => addTraces(tx, req.scope, queue_id, (req.body as Body).trace_ids));
    return { count: id ? 1 : 0, queue_id: id };
  });
  app.post("/simple/queues/:queue_id/scenarios/query", doc("The scenarios of a simple queue a user is assigned", manyOf("scenarios", ScenarioRecord), {
    params: QueueParam, body: s.SimpleQueueScenariosQueryBody,
  }), async (req) => {
    const { queue: filter, scenario, windowing } = req.body as Body;
    samePath(req.params as Body, filter);
    const found = await loadQueue(db, req.scope, (req.params as Body).queue_id);
    if (!found) return many("scenarios", [], null);
    // As in the reference, a simple queue answers from its assignment alone, not its scenario_ids.
    const page = await queueScenarios(db, req.scope, found.queue, usersOf(filter), scenario, windowing, false);
    return many("scenarios", page.items, page.windowing);
  });
}
