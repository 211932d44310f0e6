import { type StepPartials, summaryOf } from "../metrics/metric-stats.ts";
import type { EntityTable } from "./entity-table.ts";

/** The reference's schema version of evaluation entities. */
export const EVALUATION_VERSION = "2025-07-14";

const metadata = { flags: {}, tags: null, meta: null };
const status = (many: string) => ({
  status: { column: "status", type: "text" },
  [many]: { column: "status", type: "text", many: true },
});
const within = {
  interval: { column: "interval", type: "integer" },
  intervals: { column: "interval", type: "integer", many: true },
  timestamp: { column: "timestamp", type: "timestamptz" },
  timestamps: { column: "timestamp", type: "timestamptz", many: true },
  run_id: { column: "run_id", type: "uuid" },
  run_ids: { column: "run_id", type: "uuid", many: true },
  ids: { column: "id", type: "uuid", many: true },
};

export const runs: EntityTable = {
  table: "evaluation_runs",
  fields: { version: EVALUATION_VERSION, name: null, description: null, ...metadata, status: "pending", data: null },
  fixed: [],
  filters: { ...status("statuses"), ids: within.ids },
  order: "descending",
};

export const scenarios: EntityTable = {
  table: "evaluation_scenarios",
  fields: { version: EVALUATION_VERSION, ...metadata, status: "pending", interval: null, timestamp: null, run_id: null },
  fixed: ["run_id"],
  filters: { ...status("statuses"), ...within },
  order: "ascending",
};

export const results: EntityTable = {
  table: "evaluation_results",
  fields: {
    version: EVALUATION_VERSION, ...metadata, hash_id: null, trace_id: null, testcase_id: null, error: null, status: "pending",
    interval: null, timestamp: null, repeat_idx: 0, step_key: null, scenario_id: null, run_id: null,
  },
  fixed: ["step_key", "scenario_id", "run_id", "repeat_idx", "interval", "timestamp"],
  filters: {
    ...status("statuses"), ...within,
    repeat_idx: { column: "repeat_idx", type: "integer" },
    repeat_idxs: { column: "repeat_idx", type: "integer", many: true },
    step_key: { column: "step_key", type: "text" },
    step_keys: { column: "step_key", type: "text", many: true },
    scenario_id: { column: "scenario_id", type: "uuid" },
    scenario_ids: { column: "scenario_id", type: "uuid", many: true },
  },
  slot: {
    columns: ["scenario_id", "step_key", "repeat_idx"],
    update: ["version", "flags", "tags", "meta", "hash_id", "trace_id", "testcase_id", "error", "status"],
  },
  order: "ascending",
};

export const metrics: EntityTable = {
  table: "evaluation_metrics",
  fields: {
    version: EVALUATION_VERSION, ...metadata, status: "pending", data: null, interval: null, timestamp: null, scenario_id: null,
    run_id: null,
  },
  fixed: ["scenario_id", "run_id", "interval", "timestamp"],
  filters: {
    ...status("statuses"), ...within,
    scenario_id: { column: "scenario_id", type: "uuid" },
    scenario_ids: { column: "scenario_id", type: "uuid", many: true },
  },
  slot: { columns: ["run_id", "scenario_id", "timestamp"], update: ["version", "flags", "tags", "meta", "status", "data"] },
  order: "ascending",
  // A batch stores a scenario's row compact (migration 033): its statistics are computed as it is read. Any other
  // write sets `data`, and the partials it replaces go.
  derived: ["partials"],
  read: ({ partials, ...row }) =>
    (partials != null && row.data == null ? { ...row, data: summaryOf(partials as StepPartials) } : row),
};

export const queues: EntityTable = {
  table: "evaluation_queues",
  fields: { version: EVALUATION_VERSION, name: null, description: null, ...metadata, status: "pending", data: null, run_id: null },
  fixed: ["run_id"],
  filters: { ...status("statuses"), run_id: within.run_id, run_ids: within.run_ids, ids: within.ids },
  order: "descending",
};
