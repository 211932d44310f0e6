import type { Scope } from "../../accounts/scope.ts";
import type { Queryable } from "../../db/database.ts";
import { insertRows, type Row } from "./entity-table.ts";
import { beforeDirectWrite } from "../execution/run-chunks.ts";
import { assertOpenRuns } from "./runs.ts";
import { assertScenariosOfRuns } from "./scenarios.ts";
import { results } from "./tables.ts";

/**
 * Stores results: one per (scenario, step, repeat), so setting the same cell again replaces it. The runs must
 * be open (409) and each scenario must belong to its run (400).
 */
export async function setResults(db: Queryable, scope: Scope, items: Row[]): Promise<Row[]> {
  await assertOpenRuns(db, scope, items.map((r) => r.run_id as string));
  await beforeDirectWrite(db, items.map((r) => r.run_id as string));
  await assertScenariosOfRuns(db, scope, items as { scenario_id: string; run_id: string }[]);
  return insertRows(db, scope, results, items);
}
