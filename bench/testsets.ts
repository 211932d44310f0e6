import { execFile } from "node:child_process";
import { statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Api } from "./api.ts";
import { copyIn, copyOut, withClient } from "./copy-baseline.ts";
import { csvFile, postStreamed, uploadFile } from "./csv-files.ts";
import type { Child } from "./processes.ts";
import { median, type Line } from "./report.ts";

export interface Testset {
  rows: number;
  id: string;
  variantId: string;
  revisionId: string;
}

const GB = 1024 ** 3;
const mb = (bytes: number) => `${Math.round(bytes / 1024 ** 2)} MB`;
const perSecond = (n: number, ms: number) => (n * 1000) / ms;
const fmtRate = (r: number, unit: string) => `${Math.round(r).toLocaleString("en-US")} ${unit}/s`;

/** Uploads a generated CSV of `rows` rows as a new simple testset, measuring time and the server's peak RSS. */
export async function uploadTestset(api: Api, server: Child, rows: number, slug: string) {
  const file = await csvFile(rows);
  server.resetPeak();
  const started = performance.now();
  const sent = await uploadFile(`${api.url}/api/simple/testsets/upload`, api.key, { file_type: "csv", testset_slug: slug }, file);
  const ms = performance.now() - started;
  if (sent.status !== 200) throw new Error(`upload of ${rows} rows → ${sent.status}: ${sent.head.slice(0, 300)}`);
  const peak = server.peakRss();
  const rev = (await api.post("/testsets/revisions/retrieve", { testset_ref: { slug }, include_testcases: false, include_testcase_ids: false })).testset_revision;
  const testset: Testset = { rows, id: rev.testset_id, variantId: rev.testset_variant_id, revisionId: rev.id };
  return { testset, ms, peak, responseBytes: sent.bytes, fileBytes: statSync(file).size };
}

/** The upload's per-row work alone on a file (bench/row-work.ts), measured once per file and run. */
const rowWork = new Map<string, Promise<{ rows: number; ms: number }>>();
function rowWorkOf(file: string) {
  let measured = rowWork.get(file);
  if (!measured) {
    const script = fileURLToPath(new URL("./row-work.ts", import.meta.url));
    measured = promisify(execFile)(process.execPath, [script, file]).then(({ stdout }) => JSON.parse(stdout) as { rows: number; ms: number });
    rowWork.set(file, measured);
  }
  return measured;
}

/** Line 3's target ratio to COPY on each database (the embedded one loads every row on the server's own thread). */
export const UPLOAD_TARGET: Record<string, number> = { PGlite: 0.06, PostgreSQL: 0.15 };

/** Line 3: testset upload rows/s and peak RSS, against PostgreSQL COPY of the same file. */
export async function uploadLine(api: Api, server: Child, rows: number, dbLabel: string, baselineUrl: string, fixtures: Map<number, Testset>): Promise<Line> {
  const up = await uploadTestset(api, server, rows, `upload-${rows}`);
  fixtures.set(rows, up.testset);
  const base = await copyIn(baselineUrl, `bench_rows_${rows}`, await csvFile(rows));
  const work = await rowWorkOf(await csvFile(rows));
  const rate = perSecond(rows, up.ms);
  const baseRate = perSecond(base.rows, base.ms);
  const ratio = rate / baseRate;
  const target = UPLOAD_TARGET[dbLabel];
  const ok = ratio >= target && up.peak < GB;
  return {
    name: `3. upload ${rows.toLocaleString("en-US")} CSV rows (${dbLabel})`,
    figure: `${fmtRate(rate, "rows")}, RSS ${mb(up.peak)}`,
    baseline: `${fmtRate(baseRate, "rows")} (COPY)`,
    ratio,
    target: `≥ ${target}, RSS < 1 GB`,
    met: ok,
    note: `${(up.ms / 1000).toFixed(1)} s for a ${mb(up.fileBytes)} file; the upload's answer was ${mb(up.responseBytes)}. Baseline: \`COPY … FROM STDIN (FORMAT csv)\` via pg-copy-streams into a plain 3-column table on the local PostgreSQL, ${(base.ms / 1000).toFixed(1)} s. The per-row work alone on one core — the server's CSV parsing, canonical JSON and two SHA-256 hashes of every row, no database (bench/row-work.ts) — took ${(work.ms / 1000).toFixed(1)} s: ${fmtRate(perSecond(work.rows, work.ms), "rows")}, ${(perSecond(work.rows, work.ms) / baseRate).toFixed(2)} of the baseline. The server does that work on its upload threads (TESSERA_UPLOAD_WORKERS; an upload's parsing on one, its identifying on another) while the file arrives, and stores the rows once the whole file is read and valid.`,
  };
}

/** Chunk rows and bytes of a project's testset storage, and the relations' total size. */
const storage = (databaseUrl: string, testsetId: string) => withClient(databaseUrl, async (c) => {
  const { rows } = await c.query(
    `SELECT (SELECT count(*) FROM testcase_chunks ch WHERE ch.project_id = a.project_id)::bigint AS chunks,
            (SELECT coalesce(sum(length(ids)), 0) FROM testcase_chunks ch WHERE ch.project_id = a.project_id)::bigint AS chunk_bytes,
            (pg_total_relation_size('testcases') + pg_total_relation_size('testcase_chunks'))::bigint AS relations
     FROM artifacts a WHERE a.id = $1`, [testsetId]);
  return { chunks: Number(rows[0].chunks), chunkBytes: Number(rows[0].chunk_bytes), relations: Number(rows[0].relations) };
});

/** Line 4: median latency and bytes of a 10-row delta commit on testsets of each size (PostgreSQL: bytes are read from it). */
export async function deltaLines(api: Api, server: Child, sizes: number[], commits: number, databaseUrl: string, fixtures: Map<number, Testset>): Promise<Line[]> {
  const results: { rows: number; median: number; chunks: number; chunkBytes: number; relations: number; responseBytes: number; bare: number; full: number; commits: number }[] = [];
  const lines: Line[] = [];
  for (const rows of sizes) {
    try {
      const ts = fixtures.get(rows) ?? (await uploadTestset(api, server, rows, `delta-${rows}`)).testset;
      fixtures.set(rows, ts);
      const commit = async (c: number | string) => {
        const add = Array.from({ length: 10 }, (_, i) => ({ data: { input: `delta ${c}.${i} on ${rows}`, expected: "added", category: "delta" } }));
        const started = performance.now();
        const res = await fetch(`${api.url}/api/testsets/revisions/commit`, {
          method: "POST",
          headers: { authorization: `ApiKey ${api.key}`, "content-type": "application/json" },
          // The commit is measured, not the listing of a million ids in its answer: ask for the revision's metadata only.
          body: JSON.stringify({ testset_revision_commit: { testset_id: ts.id, testset_variant_id: ts.variantId, message: `delta ${c}`, delta: { rows: { add } } }, include_testcase_ids: false }),
        });
        const body = await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`commit → ${res.status}: ${Buffer.from(body).toString("utf8").slice(0, 300)}`);
        return { ms: performance.now() - started, bytes: body.byteLength };
      };
      // What a million-row load leaves the database to write back is not a commit's cost, nor is the
      // first read of a testset's lists from disk: a checkpoint and one untimed commit come first.
      await withClient(databaseUrl, (c) => c.query("CHECKPOINT")).catch(() => {});
      await commit("warm-up");
      const before = await storage(databaseUrl, ts.id);
      const times: number[] = [];
      let responseBytes = 0;
      for (let c = 0; c < commits; c++) {
        const { ms, bytes } = await commit(c);
        times.push(ms);
        responseBytes = bytes;
      }
      const after = await storage(databaseUrl, ts.id);
      // Where the time goes: the same revision read back with and without its testcases.
      const readBack = async (include: boolean) => {
        const started = performance.now();
        await api.post("/testsets/revisions/retrieve", { testset_variant_ref: { id: ts.variantId }, include_testcases: include, include_testcase_ids: include });
        return performance.now() - started;
      };
      const bare = await readBack(false);
      const full = await readBack(true);
      results.push({
        rows, median: median(times), responseBytes, bare, full,
        chunks: (after.chunks - before.chunks) / commits, chunkBytes: (after.chunkBytes - before.chunkBytes) / commits, relations: (after.relations - before.relations) / commits, commits,
      });
    } catch (error) {
      lines.push({ name: `4. delta commit, 10 rows on ${rows.toLocaleString("en-US")}`, figure: "—", baseline: "—", ratio: null, target: "latency ratio ≤ 2", met: false, note: `FAILED: ${(error as Error).message.slice(0, 300)}` });
    }
  }
  const smallest = results[0];
  for (const r of results) {
    const ratio = smallest && r !== smallest ? r.median / smallest.median : null;
    lines.push({
      name: `4. delta commit, 10 rows on ${r.rows.toLocaleString("en-US")} (PostgreSQL)`,
      figure: `${r.median.toFixed(1)} ms, +${Math.round(r.chunkBytes).toLocaleString("en-US")} B ids`,
      baseline: r === smallest ? "(the baseline)" : `${smallest.median.toFixed(1)} ms on ${smallest.rows.toLocaleString("en-US")}`,
      ratio,
      target: r === smallest ? "—" : `latency ratio ≤ 2`,
      met: ratio === null ? null : ratio <= 2,
      note: `median of ${r.commits} commits after a CHECKPOINT and one untimed commit; per commit ${r.chunks.toFixed(1)} new chunk rows, ${Math.round(r.chunkBytes).toLocaleString("en-US")} bytes of chunk ids, ${Math.round(r.relations / 1024).toLocaleString("en-US")} KiB of relation growth (testcases + testcase_chunks, page-granular); the commit's answer was ${mb(r.responseBytes)} (sent with include_testcase_ids: false: the commit, not a listing of the revision, is measured). Reading the new revision back takes ${r.bare.toFixed(0)} ms without its testcases and ${r.full.toFixed(0)} ms with them.`,
    });
  }
  return lines;
}

/** Line 5: CSV download rows/s against COPY … TO STDOUT of the same rows. */
export async function downloadLine(api: Api, testset: Testset, baselineUrl: string): Promise<Line> {
  const started = performance.now();
  const got = await postStreamed(`${api.url}/api/simple/testsets/${testset.id}/download?file_type=csv`, api.key);
  const ms = performance.now() - started;
  if (got.status !== 200) throw new Error(`download → ${got.status}: ${got.head.slice(0, 300)}`);
  const rows = got.lines - 1;
  if (rows < testset.rows) throw new Error(`download held ${rows} rows, expected at least ${testset.rows}`);
  const base = await copyOut(baselineUrl, `bench_rows_${testset.rows}`);
  const rate = perSecond(rows, ms);
  const baseRate = perSecond(base.rows, base.ms);
  return {
    name: `5. download ${testset.rows.toLocaleString("en-US")} rows as CSV (PostgreSQL)`,
    figure: fmtRate(rate, "rows"),
    baseline: `${fmtRate(baseRate, "rows")} (COPY TO)`,
    ratio: rate / baseRate,
    target: "none given (reported)",
    met: null,
    note: `${(ms / 1000).toFixed(1)} s, ${mb(got.bytes)}. Baseline: \`COPY bench_rows TO STDOUT (FORMAT csv)\` via pg-copy-streams of the same rows in a plain table, ${(base.ms / 1000).toFixed(1)} s, ${mb(base.bytes)}.`,
  };
}
