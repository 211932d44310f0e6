import type { Scope } from "../../accounts/scope.ts";
import type { Queryable } from "../../db/database.ts";
import { conflictOnDuplicate } from "../../db/unique-violation.ts";
import type { Windowing } from "../../versioning/windowing.ts";
import { deleteRows, editRow, fetchRows, insertRows, type Row } from "../entities/entity-table.ts";
import { assignedScenarios } from "./queue-assignment.ts";
import { runRows } from "../entities/linked-rows.ts";
import { assertOpenRuns } from "../entities/runs.ts";
import { queues, scenarios } from "../entities/tables.ts";
import { defaultQueueDeleted, defaultQueueStays, scopedDefaultQueue } from "../errors.ts";

/*
 * Annotation queues: a run's scenarios handed out to users. A queue's `data` scopes it (users per repeat,
 * a subset of scenarios and of steps, batches); a run's default queue (`flags.is_default`) has no scope:
 * everyone sees every scenario.
 */

export interface QueueData {
  user_ids?: string[][] | null;
  scenario_ids?: string[] | null;
  step_keys?: string[] | null;
  batch_size?: number | null;
  batch_offset?: number | null;
}

const SCOPING = ["user_ids", "scenario_ids", "step_keys", "batch_size", "batch_offset"] as const;

/** Whether a queue's data scopes nothing (the shape of a run's default queue). */
export function isDefaultShaped(data: QueueData | null | undefined): boolean {
  return !data || SCOPING.every((k) => data[k] === null || data[k] === undefined);
}

function checkQueue(queue: Row): void {
  const flags = (queue.flags ?? {}) as { is_default?: boolean };
  if (flags.is_default && !isDefaultShaped(queue.data as QueueData)) {
    throw scopedDefaultQueue();
  }
}

const isDefault = (queue: Row) => (queue.flags as { is_default?: boolean } | null)?.is_default === true;
/** Runs a write of queues; a second default queue for a run is a 409 (one index keeps one a run). */
const oneDefaultPerRun = <T>(write: Promise<T>) =>
  conflictOnDuplicate(write, "The run already has a default queue", "evaluation_queues_default_per_run");

const withFlags = (queue: Row): Row => {
  const flags = (queue.flags ?? {}) as Record<string, unknown>;
  const fixed = { is_default: flags.is_default === true, is_sequential: flags.is_sequential === true };
  return { ...queue, flags: { ...flags, ...fixed } };
};

/** Creates queues on open runs of the caller's project (404 for an unknown run, 409 for a closed one). */
export async function createQueues(db: Queryable, scope: Scope, items: Row[]): Promise<Row[]> {
  items.forEach(checkQueue);
  await assertOpenRuns(db, scope, items.map((q) => q.run_id as string));
  return oneDefaultPerRun(insertRows(db, scope, queues, items.map(withFlags)));
}

/** Edits a queue (its run stays); null when there is no such queue. */
export async function editQueue(db: Queryable, scope: Scope, id: string, edit: Row): Promise<Row | null> {
  const [current] = await fetchRows(db, scope, queues, [id]);
  if (!current) return null;
  const merged = { ...current, ...edit };
  checkQueue(merged);
  if (isDefault(current) && "flags" in edit && !isDefault(merged)) {
    throw defaultQueueStays(id, current.run_id as string);
  }
  const fixed = "flags" in edit ? { ...edit, flags: withFlags(merged).flags } : edit;
  return oneDefaultPerRun(editRow(db, scope, queues, id, fixed));
}

/** Deletes queues; a run's default queue goes only with its run (409). */
export async function deleteQueues(db: Queryable, scope: Scope, ids: string[]): Promise<string[]> {
  const found = await fetchRows(db, scope, queues, ids);
  const fixed = found.find(isDefault);
  if (fixed) {
    throw defaultQueueDeleted(fixed.id as string, fixed.run_id as string);
  }
  return deleteRows(db, scope, queues, ids);
}

/** The queue's scenario ids in creation order (limited to `data.scenario_ids` unless `ownScope` is false). */
async function queueScenarioIds(db: Queryable, scope: Scope, queue: Row, ownScope: boolean): Promise<string[]> {
  const only = ownScope ? (queue.data as QueueData | null)?.scenario_ids ?? null : null;
  const params: unknown[] = [scope.projectId, only];
  const from = await runRows(db, scope.projectId, scenarios, [queue.run_id as string], params);
  const rows = await db.query<{ id: string }>(
    `SELECT id FROM ${from} s WHERE project_id = $1 AND ($2::uuid[] IS NULL OR id = ANY($2::uuid[])) ORDER BY id`,
    params,
  );
  return rows.map((r) => r.id);
}

/**
 * The scenarios of a queue the given users are assigned, in each repeat, merged across users; with no
 * user named, or a queue that names no users, every scenario of the queue.
 */
export async function assignedIds(
  db: Queryable, scope: Scope, queue: Row, users: string[], ownScope = true,
): Promise<string[]> {
  const ids = await queueScenarioIds(db, scope, queue, ownScope);
  const data = (queue.data ?? {}) as QueueData;
  if (!data.user_ids?.length || users.length === 0) return ids;
  const assignment = {
    userIds: data.user_ids, isSequential: (queue.flags as { is_sequential?: boolean } | null)?.is_sequential === true,
    batchSize: data.batch_size, batchOffset: data.batch_offset,
  };
  const out = new Set<string>();
  for (const user of users) {
    for (const repeat of assignedScenarios(user, ids, assignment)) repeat.forEach((id) => out.add(id));
  }
  return ids.filter((id) => out.has(id));
}

/** A page of the scenarios `users` are assigned in `queue`, optionally of some statuses, in assignment order. */
export async function queueScenarios(
  db: Queryable, scope: Scope, queue: Row, users: string[],
  filter: { status?: string | null; statuses?: string[] | null } | null | undefined,
  windowing: Windowing | null | undefined, ownScope = true,
) {
  let ids = await assignedIds(db, scope, queue, users, ownScope);
  const statuses = [...(filter?.statuses ?? []), ...(filter?.status ? [filter.status] : [])];
  if (windowing?.next) ids = ids.slice(ids.indexOf(windowing.next) + 1);
  const limit = Math.min(Math.max(windowing?.limit ?? 1000, 1), 1000);
  const rows = ids.length === 0 ? [] : await db.query<{ id: string }>(
    `SELECT id FROM evaluation_scenarios WHERE project_id = $1 AND id = ANY($2::uuid[])
     AND (cardinality($3::text[]) = 0 OR status = ANY($3::text[])) ORDER BY id LIMIT ${limit + 1}`,
    [scope.projectId, ids, statuses],
  );
  const more = rows.length > limit;
  const page = rows.slice(0, limit).map((r) => r.id);
  const items = await fetchRows(db, scope, scenarios, page);
  return { items, windowing: more ? { next: page[page.length - 1], limit, order: "ascending" as const } : null };
}

/** The users a queue's data names, flattened (what a `user_id` filter matches). */
export const queueUsers = (queue: Row): string[] =>
  ((queue.data as QueueData | null)?.user_ids ?? []).flat().map((u) => u.toLowerCase());

/** Keeps the queues that name any of `users` (all of them when no user is asked for). */
export function withUsers(rows: Row[], users: string[]): Row[] {
  if (users.length === 0) return rows;
  const wanted = new Set(users.map((u) => u.toLowerCase()));
  return rows.filter((q) => queueUsers(q).some((u) => wanted.has(u)));
}

/** `user_id` and `user_ids` of a filter, as one list. */
export function usersOf(filter: { user_id?: string | null; user_ids?: string[] | null } | null | undefined): string[] {
  return [...new Set([...(filter?.user_id ? [filter.user_id] : []), ...(filter?.user_ids ?? [])])];
}
