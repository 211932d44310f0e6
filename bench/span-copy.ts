import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPglite } from "../src/db/pglite-driver.ts";
import { migrate } from "../src/db/migrate.ts";
import { binaryCopyData } from "../src/db/copy-binary.ts";
import { SPANS_COPY } from "../src/tracing/spans.ts";
import { exportRequests, spanRows } from "./tracing.ts";

/**
 * The embedded database's side of span ingestion alone (`node bench/span-copy.ts [spans] [statements]`, 300,000 by
 * default): the COPY data of line 10's spans (the server's own normaliser and row writer, built before the clock
 * starts), loaded into a fresh PGlite as the server opens it (32 MB buffer pool) in one transaction per request of 1,000
 * spans, in a process of its own. `statements` (separated by `;`) run after the migrations, to weigh a change of the
 * schema: `"DROP INDEX spans_labels"`. Prints `{spans, ms, cpuMs, usPerSpan}`, CPU being the whole process's (user +
 * system).
 */
const spans = Number(process.argv[2] ?? 300_000);
const statements = (process.argv[3] ?? "").split(";").filter((statement) => statement.trim() !== "");
const requests = [...exportRequests(spans, Date.now())].map((request) => binaryCopyData([spanRows(request)]));
const dir = mkdtempSync(join(tmpdir(), "tessera-span-copy-"));
try {
  const db = await openPglite(dir, { sharedBuffersMb: 32, maintenanceMs: 3_600_000 });
  await migrate(db);
  for (const statement of statements) await db.query(statement);
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (const data of requests) await db.transaction((tx) => tx.copyFrom!(SPANS_COPY, data));
  const used = process.cpuUsage(cpu);
  const ms = performance.now() - started;
  await db.close();
  const cpuMs = (used.user + used.system) / 1000;
  process.stdout.write(`${JSON.stringify({ spans, ms: Math.round(ms), cpuMs: Math.round(cpuMs), usPerSpan: +((cpuMs * 1000) / spans).toFixed(1) })}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
