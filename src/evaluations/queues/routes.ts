import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import type { AppContext } from "../../context.ts";
import { IdParam } from "../../schema-parts.ts";
import { doc, entityRoutes, many, one } from "../entities/entity-routes.ts";
import { fetchRows, queryRows } from "../entities/entity-table.ts";
import { createQueues, deleteQueues, editQueue, queueScenarios, usersOf, withUsers } from "./queues.ts";
import { idOf, manyOf, oneOf, QueueRecord, ScenarioRecord, SimpleQueueRecord } from "../entities/record-schemas.ts";
import * as s from "../schemas.ts";
import {
  addTestcases, addTraces, createSimpleQueue, deleteSimpleQueue, loadQueue, queueKind, simpleQueueRecord,
  type SimpleQueueInput,
} from "./simple-queues.ts";
import { queues, runs } from "../entities/tables.ts";
import { queueIdMismatch } from "../errors.ts";

/** A body's `queue.id`, when sent, must be the path's. */
const samePath = (params: { queue_id: string }, filter: { id?: string | null } | null | undefined) => {
  if (filter?.id && filter.id !== params.queue_id) {
    throw queueIdMismatch();
  }
};
const QueueParam = IdParam("queue_id");

/** A run's default queue, and the scenarios of a queue a user is assigned. */
function queueMemberRoutes(instance: FastifyInstance, { db }: AppContext) {
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();
  const defaultOf = doc("Fetch a run's default queue", oneOf("queue", QueueRecord), { params: IdParam("run_id") });
  app.get("/evaluations/runs/:run_id/queues/default", defaultOf, async (req) => {
    const filter = { run_id: req.params.run_id, flags: { is_default: true } };
    const page = await queryRows(db, req.scope, queues, filter, null);
    return one("queue", page.items[0]);
  });
  const assigned = doc("The scenarios of a queue a user is assigned", manyOf("scenarios", ScenarioRecord), {
    params: QueueParam, body: s.QueueScenariosQueryBody,
  });
  app.post("/evaluations/queues/:queue_id/scenarios/query", assigned, async (req) => {
    const { queue: filter, scenario, windowing } = req.body;
    samePath(req.params, filter);
    const [queue] = await fetchRows(db, req.scope, queues, [req.params.queue_id]);
    if (!queue) return many("scenarios", [], null);
    const page = await queueScenarios(db, req.scope, queue, usersOf(filter), scenario, windowing);
    return many("scenarios", page.items, page.windowing);
  });
}

/**
 * Annotation queues over HTTP, in the reference's shapes: `/evaluations/queues/…` (a run's scenarios
 * handed to users) and `/simple/queues/…` (a queue and its run made in one call, testcases sent to it).
 */
export async function queueRoutes(instance: FastifyInstance, ctx: AppContext) {
  const { db } = ctx;
  const app = instance.withTypeProvider<TypeBoxTypeProvider>();

  entityRoutes({
    table: queues, path: "/evaluations/queues", one: "queue", many: "queues", aRow: "a queue", record: QueueRecord,
    bodies: {
      create: s.QueuesCreateBody, edits: s.QueuesEditBody, edit: s.QueueEditBody, ids: s.QueueIdsBody,
      query: s.QueueQueryBody,
    },
    create: { write: createQueues },
    edit: editQueue,
    remove: (db, scope, ids) => db.transaction((tx) => deleteQueues(tx, scope, ids)),
    shapeQuery: (rows, filter) => withUsers(rows, usersOf(filter)),
    member: queueMemberRoutes,
  })(app, ctx);

  // Simple queues
  app.post("/simple/queues/", doc("Create a queue and its run", oneOf("queue", SimpleQueueRecord), { body: s.SimpleQueueCreateBody }), async (req) => {
    const input: SimpleQueueInput = req.body.queue;
    const { maxTraces } = ctx.config.evaluations;
    return one("queue", await db.transaction((tx) => createSimpleQueue(tx, req.scope, input, maxTraces)));
  });
  app.post("/simple/queues/query", doc("Query simple queues", manyOf("queues", SimpleQueueRecord), { body: s.SimpleQueueQueryBody }), async (req) => {
    const { queue: filter, windowing } = req.body;
    // The filter is free-form, as the reference's is: these are the fields it reads.
    const f = filter ?? {};
    const listed = f.run_ids ?? [];
    // A run_ids that is not a list goes on as it is, for the query's 422 to name it.
    const runIds = Array.isArray(listed) ? [...listed, ...(f.run_id ? [f.run_id] : [])] : listed;
    const page = await queryRows(db, req.scope, queues, {
      name: f.name, tags: f.tags, meta: f.meta, ids: f.queue_ids,
      run_ids: Array.isArray(runIds) && runIds.length === 0 ? null : runIds,
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
    const found = await loadQueue(db, req.scope, req.params.queue_id);
    return one("queue", found ? simpleQueueRecord(found.queue, found.run) : null);
  });
  app.delete("/simple/queues/:queue_id", doc("Delete a simple queue", idOf("queue_id"), { params: QueueParam }), async (req) => {
    const id = await db.transaction((tx) => deleteSimpleQueue(tx, req.scope, req.params.queue_id));
    return { count: id ? 1 : 0, queue_id: id };
  });
  app.post("/simple/queues/:queue_id/testcases/", doc("Send testcases to a queue", idOf("queue_id"), {
    params: QueueParam, body: s.SimpleQueueTestcasesBody,
  }), async (req) => {
    const { queue_id } = req.params;
    const id = await db.transaction((tx) => addTestcases(tx, req.scope, queue_id, req.body.testcase_ids));
    return { count: id ? 1 : 0, queue_id: id };
  });
  app.post("/simple/queues/:queue_id/traces/", doc("Send traces to a queue", idOf("queue_id"), {
    params: QueueParam, body: s.SimpleQueueTracesBody,
  }), async (req) => {
    const { queue_id } = req.params;
    await ctx.traces?.flush(); // a trace just invoked may still be on its way to the table
    const id = await db.transaction((tx) => addTraces(tx, req.scope, queue_id, req.body.trace_ids));
    return { count: id ? 1 : 0, queue_id: id };
  });
  app.post("/simple/queues/:queue_id/scenarios/query", doc("The scenarios of a simple queue a user is assigned", manyOf("scenarios", ScenarioRecord), {
    params: QueueParam, body: s.SimpleQueueScenariosQueryBody,
  }), async (req) => {
    const { queue: filter, scenario, windowing } = req.body;
    samePath(req.params, filter);
    const found = await loadQueue(db, req.scope, req.params.queue_id);
    if (!found) return many("scenarios", [], null);
    // As in the reference, a simple queue answers from its assignment alone, not its scenario_ids.
    const page = await queueScenarios(db, req.scope, found.queue, usersOf(filter), scenario, windowing, false);
    return many("scenarios", page.items, page.windowing);
  });
}
