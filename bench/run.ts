import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { ADMIN_KEY, provision, type Api } from "./api.ts";
import { commitLine } from "./commits.ts";
import { csvPath } from "./csv-files.ts";
import { baselineLoad, deployHotApplication, retrieveLoad, type Load } from "./hot-path.ts";
import { ROOT, SERVER_ROOT, startChild, type Child } from "./processes.ts";
import { failed, machine, median, printTable, writeReport, type Line } from "./report.ts";
import { consoleLines } from "./console.ts";
import { evaluationLines } from "./evaluations.ts";
import { INVOKE_TARGET, invokeLine } from "./invoke.ts";
import { NOISY_NEIGHBOUR, noisyNeighbourLine } from "./noisy-neighbour.ts";
import { projectTurnsLine } from "./project-turns.ts";
import { sdkLine } from "./sdk.ts";
import { tracingLines } from "./tracing.ts";
import { startStubLlm, type StubLlm } from "../test/support/stub-llm.ts";
import { startLines } from "./start.ts";
import { deltaLines, downloadLine, UPLOAD_TARGET, uploadLine, type Testset } from "./testsets.ts";
import { uploadNeighbourLine, uploadNeighbourName } from "./upload-neighbour.ts";
import { IDLE_MEMORY, IDLE_MEMORY_TARGET, idleMemoryLine, idleRss } from "./idle-memory.ts";
import { webhookLine } from "./webhooks.ts";

/**
 * `npm run bench [-- --quick] [-- --profile]`: starts its own servers (a bare Fastify baseline, Tessera on
 * PGlite, Tessera on PostgreSQL), measures each line against a same-run baseline, prints the table
 * and writes BENCHMARKS.md. A line that fails is reported as such; the others still run.
 */
const args = process.argv.slice(2);
const quick = args.includes("--quick");
const profile = args.includes("--profile");
/** `--only=invoke`: run just the lines whose name contains this text (a line may need an earlier one's data). */
const only = args.find((a) => a.startsWith("--only="))?.slice("--only=".length).toLowerCase();
const seconds = quick ? 3 : 10;
const warmup = quick ? 1 : 3;
const hotRounds = quick ? 1 : 5;
const bigRows = quick ? 100_000 : 1_000_000;
const adminUrl = process.env.BENCH_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const benchDb = process.env.BENCH_DATABASE ?? "tessera_bench";
const benchUrl = Object.assign(new URL(adminUrl), { pathname: `/${benchDb}` }).toString();

const work = mkdtempSync(join(tmpdir(), "tessera-bench-"));
const lines: Line[] = [];
const began = performance.now();
const progress = (s: string) => process.stderr.write(`[bench ${((performance.now() - began) / 1000).toFixed(0).padStart(4)} s] ${s}\n`);

const wanted = (name: string) => !only || name.toLowerCase().includes(only);

/** Runs a line, or a group of lines (`group`: it picks the wanted ones itself, and runs none when none is). */
async function attempt(
  name: string, target: string, run: () => Promise<Line | Line[] | null>, group = false,
): Promise<void> {
  if (!group && !wanted(name)) return;
  progress(name);
  try {
    const got = await run();
    if (got) lines.push(...(Array.isArray(got) ? got : [got]));
  } catch (error) {
    const line = failed(name, target, error);
    progress(`  failed: ${line.note.slice("FAILED: ".length)}`);
    lines.push(line);
  }
}

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const fmtLoad = (l: Load) => `${Math.round(l.rps).toLocaleString("en-US")} req/s, p99 ${l.p99} ms`;

function hotLine(name: string, { got, base, ratio, ratios, cpu }: Awaited<ReturnType<typeof hotPair>>, target: number, what: string): Line {
  return {
    name,
    figure: fmtLoad(got),
    baseline: fmtLoad(base),
    ratio,
    target: `≥ ${target}`,
    met: ratio >= target && got.failures === 0,
    note: `${what}; autocannon in a fresh client process per load, 64 connections, ${seconds} s a load after ${warmup} s of warm-up; ${ratios.length === 1 ? "one round" : `the median of ${ratios.length} rounds (ratios ${ratios.map((r) => r.toFixed(2)).join(", ")}), each a baseline and a Tessera load back to back, in alternating order`}${got.failures ? `; ${got.failures} unexpected answers` : ""}. The client shares the machine's ${machine().cores} cores with the server, for the baseline too. Server CPU time per request (user + system, the median over the rounds): Tessera ${cpu.got.toFixed(1)} µs, the empty route ${cpu.base.toFixed(1)} µs (${(cpu.base / cpu.got).toFixed(2)}).`,
  };
}

async function tessera(label: string, env: Record<string, string>): Promise<{ server: Child; api: Api }> {
  const server = await startChild("src/main.ts", { TESSERA_ADMIN_KEY: ADMIN_KEY, TESSERA_DATA_DIR: join(work, `data-${label}`), ...env }, work, `tessera-${label}`, "/api/health",
    profile ? ["--cpu-prof", `--cpu-prof-dir=${join(ROOT, "bench", "profiles")}`] : []);
  return { server, api: await provision(server.url) };
}

/** The empty Fastify route, up for the whole run: each hot-path line measures it in rounds with Tessera. */
let empty: Child | null = null;

/**
 * Baseline and Tessera under the same request, in rounds of one load each, back to back and in
 * alternating order (B T, T B, B T): the machine's speed drifts by 10–30% over minutes on a shared VM,
 * and the ratio of each round's two loads is what is compared. The line's ratio is the median round's.
 */
async function hotPair(api: Api, server: Child, etag?: string): Promise<{ got: Load; base: Load; ratio: number; ratios: number[]; cpu: { got: number; base: number } }> {
  if (!empty) throw new Error("no baseline (the empty Fastify server did not start)");
  const { url: origin, pid } = empty;
  await baselineLoad(origin, warmup, etag !== undefined);
  await retrieveLoad(api, warmup, etag);
  const base = () => baselineLoad(origin, seconds, etag !== undefined, pid);
  const got = () => retrieveLoad(api, seconds, etag, server.pid);
  const rounds: { got: Load; base: Load; ratio: number }[] = [];
  for (let r = 0; r < hotRounds; r++) {
    const pair = r % 2 === 0 ? { base: await base(), got: await got() } : { got: await got(), base: await base() };
    rounds.push({ ...pair, ratio: pair.got.rps / pair.base.rps });
  }
  const middle = [...rounds].sort((a, b) => a.ratio - b.ratio)[rounds.length >> 1];
  const failures = rounds.reduce((n, r) => n + r.got.failures, 0);
  const cpu = { got: median(rounds.map((r) => r.got.cpu ?? NaN)), base: median(rounds.map((r) => r.base.cpu ?? NaN)) };
  return { got: { ...middle.got, failures }, base: middle.base, ratio: middle.ratio, ratios: rounds.map((r) => r.ratio), cpu };
}

async function hotPath(label: string, api: Api, server: Child) {
  const etag = await deployHotApplication(api);
  const plain = await hotPair(api, server);
  await attempt(`2. retrieve with If-None-Match → 304 (${label})`, "≥ 0.9", async () => {
    return hotLine(`2. retrieve with If-None-Match → 304 (${label})`, await hotPair(api, server, etag), 0.9, "the same request with the current ETag: 304 without a body");
  });
  return hotLine(`1. retrieve by environment_ref (${label})`, plain, 0.8, "POST /api/applications/revisions/retrieve {application_ref, environment_ref: production}, a deployed prompt config");
}

async function main() {
  progress(`${quick ? "quick" : "full"} run; work dir ${work}`);
  const fixtures = new Map<number, Testset>();
  empty = await startChild("bench/empty-server.ts", {}, work, "empty-fastify", "/health").catch((error) => {
    lines.push(failed("baseline: empty Fastify route", "—", error));
    return null;
  });
  try {
    await measure(fixtures);
  } finally {
    await empty?.stop();
  }
}

const uploadTarget = (database: string) => `≥ ${UPLOAD_TARGET[database]}, RSS < 1 GB`;
const EVALUATION_GOALS = "≥ 0.5; RSS < 1 GB; invocations = 10";
/** The 1-row run beside another project's queued runs (bench/project-turns.ts): its line's name, the runs' rows. */
const turnsName = (database: string) => `8. 1-row evaluation beside another project's 4 queued runs (${database})`;
const TURNS_ROWS = 2_000;
/** Testcases of the throughput run and of the large run. */
const evaluationRows: [number, number] = quick ? [2_000, 20_000] : [10_000, 100_000];

async function measure(fixtures: Map<number, Testset>) {
  // Both servers' provider is a stub on 127.0.0.1 (the invoke and evaluation lines).
  const llm = await startStubLlm();
  // Webhook subscribers on 127.0.0.1 need private hooks allowed, and their secrets a key on PostgreSQL.
  const provider = {
    OPENAI_BASE_URL: llm.baseUrl, OPENAI_API_KEY: "sk-bench", TESSERA_ALLOW_PRIVATE_HOOKS: "true",
    TESSERA_SECRET_KEY: "tessera-bench-secret-key",
  };
  try {
    await measureOn(fixtures, llm, provider);
  } finally {
    await llm.close();
  }
  await attempt("6. cold start / warm restart (npm start, PGlite)", "reported", () => startLines(work, quick ? 1 : 3));
}

/** Spans of the tracing lines (bench/tracing.ts): ingested over OTLP, then queried. */
const spanCount = quick ? 100_000 : 1_000_000;
const spansName = (database: string) => `10. OTLP ingestion of ${spanCount.toLocaleString("en-US")} spans (${database})`;
function spanLines(database: string, api: Api, server: Child) {
  if (!empty) throw new Error("no baseline (the empty Fastify server did not start)");
  return tracingLines(database, api, server, spanCount, work, benchUrl, empty.url, seconds);
}

async function measureOn(fixtures: Map<number, Testset>, llm: StubLlm, provider: Record<string, string>) {
  // Tessera on the embedded database.
  try {
    const { server, api } = await tessera("pglite", provider);
    const atStart = wanted(IDLE_MEMORY) ? await idleRss(server) : 0;
    const before = lines.length;
    try {
      await attempt("invoke overhead (completion, PGlite)", INVOKE_TARGET, () => invokeLine(api, llm.baseUrl, quick ? 200 : 1000));
      await attempt("1. retrieve by environment_ref (PGlite)", "≥ 0.8", () => hotPath("PGlite", api, server));
      // The PGlite upload's baseline is still PostgreSQL's COPY: there is no faster way to load rows here.
      await attempt("3. upload 100,000 CSV rows (PGlite)", uploadTarget("PGlite"), () => uploadLine(api, server, 100_000, "PGlite", benchUrl, new Map()));
      if (bigRows !== 100_000) {
        await attempt(`3. upload ${bigRows.toLocaleString("en-US")} CSV rows (PGlite)`, uploadTarget("PGlite"), () => uploadLine(api, server, bigRows, "PGlite", benchUrl, new Map()));
      }
      await attempt("7. application commits (PGlite)", "no lost version", () => commitLine(api, "PGlite", 16, quick ? 5 : 25));
      await attempt("webhooks: deploy → subscriber (PGlite)", "reported", () =>
        webhookLine(api, "PGlite", quick ? 50 : 200));
      await attempt("8. evaluations (PGlite)", EVALUATION_GOALS, () =>
        evaluationLines("PGlite", api, server, llm, ...evaluationRows, wanted), true);
      await attempt(turnsName("PGlite"), "< 5 s", () => projectTurnsLine(turnsName("PGlite"), server, TURNS_ROWS));
      await attempt(NOISY_NEIGHBOUR, "≤ 2", () => noisyNeighbourLine(server.url, seconds, warmup));
      await attempt(spansName("PGlite"), "≥ 0.25, RSS < 1 GB", () => spanLines("PGlite", api, server));
      await attempt(uploadNeighbourName("PGlite"), "no read > 1 s", () =>
        uploadNeighbourLine(server.url, "PGlite", seconds));
      const workload = lines.slice(before).map((l) => l.name);
      await attempt(IDLE_MEMORY, IDLE_MEMORY_TARGET, () => idleMemoryLine(server, atStart, workload));
    } finally {
      await server.stop();
    }
  } catch (error) {
    progress(`Tessera on PGlite failed: ${(error as Error).message}`);
    lines.push(failed("Tessera on PGlite", "—", error));
  }

  // Tessera on PostgreSQL, in a database of the bench's own.
  try {
    const { server, api } = await tessera("postgres", { DATABASE_URL: benchUrl, ...provider });
    try {
      await attempt("1. retrieve by environment_ref (PostgreSQL)", "≥ 0.8", () => hotPath("PostgreSQL", api, server));
      await attempt("SDK getConfig from its cache", "< 50 µs", () => sdkLine(api, quick ? 20_000 : 100_000));
      await attempt("3. upload 100,000 CSV rows (PostgreSQL)", uploadTarget("PostgreSQL"), () => uploadLine(api, server, 100_000, "PostgreSQL", benchUrl, fixtures));
      if (bigRows !== 100_000) {
        await attempt(`3. upload ${bigRows.toLocaleString("en-US")} CSV rows (PostgreSQL)`, uploadTarget("PostgreSQL"), () => uploadLine(api, server, bigRows, "PostgreSQL", benchUrl, fixtures));
      }
      await attempt(`5. download ${bigRows.toLocaleString("en-US")} rows as CSV (PostgreSQL)`, "reported", async () => {
        const ts = fixtures.get(bigRows);
        if (!ts) throw new Error(`no testset of ${bigRows} rows (its upload failed)`);
        return downloadLine(api, ts, benchUrl);
      });
      await attempt("4. delta commits (PostgreSQL)", "latency ratio ≤ 2", () => deltaLines(api, server, quick ? [1_000, 10_000, 100_000] : [1_000, 100_000, 1_000_000], quick ? 3 : 5, benchUrl, fixtures));
      await attempt("7. application commits (PostgreSQL)", "no lost version", () => commitLine(api, "PostgreSQL", 16, quick ? 5 : 25));
      await attempt("webhooks: deploy → subscriber (PostgreSQL)", "reported", () =>
        webhookLine(api, "PostgreSQL", quick ? 50 : 200));
      await attempt("8. evaluations (PostgreSQL)", EVALUATION_GOALS, () =>
        evaluationLines("PostgreSQL", api, server, llm, ...evaluationRows, wanted), true);
      await attempt(uploadNeighbourName("PostgreSQL"), "≤ 2", () =>
        uploadNeighbourLine(server.url, "PostgreSQL", seconds));
      await attempt(turnsName("PostgreSQL"), "< 5 s", () =>
        projectTurnsLine(turnsName("PostgreSQL"), server, TURNS_ROWS));
      await attempt(spansName("PostgreSQL"), "≥ 0.25, RSS < 1 GB", () => spanLines("PostgreSQL", api, server));
      await attempt("9. console in Chromium (PostgreSQL)", "< 1 s; < 500 ms", () => consoleLines(api, server, bigRows, fixtures.get(bigRows), quick ? 3 : 5));
    } finally {
      await server.stop();
    }
  } catch (error) {
    progress(`Tessera on PostgreSQL failed: ${(error as Error).message}`);
    lines.push(failed("Tessera on PostgreSQL", "—", error));
  }
}

async function cleanUp() {
  rmSync(work, { recursive: true, force: true });
  for (const rows of [1_000, 10_000, 100_000, 1_000_000]) rmSync(csvPath(rows), { force: true });
  // BENCH_KEEP_DATABASE=1 leaves it for a look at what the run stored (pg_stat_statements, the rows themselves).
  if (process.env.BENCH_KEEP_DATABASE) return progress(`kept ${benchDb}`);
  await admin(`DROP DATABASE IF EXISTS ${benchDb} WITH (FORCE)`).catch((e) => progress(`could not drop ${benchDb}: ${e.message}`));
}

try {
  await admin(`DROP DATABASE IF EXISTS ${benchDb} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${benchDb}`);
} catch (error) {
  progress(`PostgreSQL unavailable at ${adminUrl}: ${(error as Error).message}`);
}
try {
  await main();
} finally {
  await cleanUp();
}
printTable(lines);
// A partial run (--only) prints its lines but leaves BENCHMARKS.md to full and quick runs.
const path = only ? "(nothing: --only runs are not written)" : writeReport(lines, machine(), quick ? "quick (`--quick`: 3 s loads, 100,000-row testsets)" : "full (10 s loads, 1,000,000-row testsets)", [
  "Servers are child processes (`node src/main.ts`, LOG_LEVEL=warn) on free ports: one with a fresh TESSERA_DATA_DIR (PGlite), one with DATABASE_URL to a database the bench creates and drops (`tessera_bench`).",
  "The hot-path baseline is a bare Fastify app (`bench/empty-server.ts`) whose POST route returns `{}`, run as a child process for the whole bench, loaded in rounds alternating with Tessera's loads (five in a full run, the line's ratio being the median round's) with the same autocannon settings and sent the same request as the line it is the baseline of: the same path, JSON body and headers (`Authorization` with a key of the same length, and for line 2 an `If-None-Match` of the same length). Earlier versions of the bench sent the empty route a bare `{}` at `/empty` without those headers: a lighter request, which it answered about 20% faster on this machine than the real one.",
  "Peak RSS is the server process's VmHWM from /proc, reset (clear_refs 5) before each upload.",
  "Upload and download baselines use `pg-copy-streams` (pure JS, also what the server loads testsets with) for `COPY … FROM STDIN` / `COPY … TO STDOUT` on the local PostgreSQL.",
  "The PGlite lines do not include the download or the delta lines: those run on PostgreSQL, where the bench can read storage sizes directly.",
  "Line 9 (the console) drives Chromium through playwright-core (`bench/console.ts`) against the PostgreSQL server: each navigation in a fresh browser context (cold cache, the key put in sessionStorage before the page loads), then once more in that context (the immutable modules cached), timed in the page from the navigation's start to the animation frame after the element appears; the target is checked on the cold figure, and the note gives Playwright's own view (page.goto to its locator finding the element). The browser shares the machine's cores with the server. On this kind of machine a static HTML page holding the same 50-row table, with the console's stylesheet and no script, takes Chromium about 250–300 ms from page.goto to the locator.",
  "Lines 10–12 (bench/tracing.ts): 1,000,000 spans (100,000 traces of a workflow root and nine steps, a week of start times) are encoded as OTLP protobuf requests of 1,000 spans before the clock starts and sent two at a time; each answer comes once its spans are committed. The baseline is `COPY … FROM STDIN` of the very rows the server stores, in the binary format it sends them in (its own normaliser and row writer, written to a file first) into a table of the spans' columns with no key or index. Lines 11 and 12 then load the server and the empty route with the same request (8 connections, the load's length): the ratio is of the two p99s, and the figure gives Tessera's own.",
  `Servers ran from ${SERVER_ROOT === ROOT ? "this working tree" : `\`${SERVER_ROOT}\` (\`--server-root\`)`}.`,
  `Total bench time: ${((performance.now() - began) / 60000).toFixed(1)} min.`,
  "Where the time goes on the lines with a target that is missed or met narrowly, from profiles (`npm run bench -- --profile` writes server CPU profiles to bench/profiles/) and per-request CPU:",
  "— Upload (lines 3 and 10): the server parses and identifies an upload's rows on its upload threads (src/testsets/row-thread.ts; TESSERA_UPLOAD_WORKERS, one a core; an upload's parsing on one, its identifying in file order on another) while the file arrives, then stores them in short transactions once the whole file is read and valid (issue 31: a bad last row leaves nothing, a stalled client holds nothing). Each upload line's note gives, measured in the same run, the per-row work alone on one core (bench/row-work.ts). What is left is the database's side: on PGlite, which runs on the server's main thread, a CPU profile of the server during line 10 (3 × 150,000 rows, 58.9 s of the server's life) showed 31 s in PGlite's own execution, 3.2 s of garbage collection, 1.1 s of gzip and about 2 s of the upload's JavaScript on that thread (spool, COPY text, passing the file on), while the two upload threads were busy 11.3 s and 7.9 s (self time: SHA-256 3.4 s, CSV parsing 3.4 s, canonical JSON 1.7 s, garbage collection 1.7 s, the dedup digest table 1.0 s). Measured earlier with psql: a server-side `COPY` of 1,000,000 rows, already sorted by id and already as JSON, into a table shaped like `testcases` took 10.3 s, against 1.5 s into the plain 3-column table; into one shaped like `testcase_chunk_index` 2.3 s against 0.65 s. Timed inside the server on PostgreSQL (1,000,000 rows, AMD EPYC, two runs): receiving and identifying the file 12.5–13.4 s, storing 11.1–13.4 s (the testcases' COPY 7.1 s, the chunk index rows 3.7 s, the chunks 0.3 s), the commit 9 ms. With the parsing and the identifying on two threads instead of one (same machine, one run each): receiving and identifying 9.6 s → 6.2–6.6 s, storing 7.7–8.2 s either way (the line 17.7 s → 14.2–14.7 s; on PGlite 6.8 s and 15.6 s); the per-row work alone on one core took 5.8–6.2 s that hour, and overlapping the store's batches with the next one's sorting and text gained nothing (7.5 s), the database being the store's limit. Two costs of the store were then removed. The index rows (testcase_chunk_index, one an id: with psql, COPY of 1,000,000 of them 2.7 s, against 4.4–4.9 s for the testcases and 1.0 s into the plain table): the upload thread now cuts the chunks as it identifies the rows and each testcase row names its chunk (testcases.chunk_key, migration 035), so an upload writes index rows only for rows it did not store itself. And an object a row on the request's thread (a Buffer a line, sorted by a string of its id, batches joined with Buffer.concat, index rows as strings built in 64 passes): lines are now ordered by their ids' leading bits in one typed array and copied into one reused batch buffer (src/testsets/id-order.ts). In-process store of a received upload (AMD EPYC, runs alternating): PostgreSQL, 1,000,000 rows, 15.8–16.1 s → 10.1–15.5 s with the typed ordering, then 10.1–12.2 s → 7.8–8.5 s without the index rows; PGlite, 300,000 rows, 6.8–8.2 s → 5.0–6.0 s. What remains is arithmetic on two cores: at this line's 0.15 the whole upload of 1,000,000 rows must take about 7 s where COPY takes 1.1 s, while the per-row work alone (parsing, canonical JSON, two SHA-256) is 9 s of one core and the database's own COPY of the testcases with their two indexes 4.4–4.9 s of the other, before HTTP and the spool. Without zeros written into new WAL files (src/db/pglite-driver.ts), the 1,000,000-row PGlite upload ran at 30,803 and 33,020 rows/s against 29,785 and 30,946 before, alternating runs, within the spread. PGlite's own codec for bytea values turned the packed ids of an upload's chunks (16 MB at 1,000,000 rows) into an array of numbers and a string a byte (2.3 s for 16 MB in a process of its own, against 2 ms with Node's hex codec, which the server now gives it, src/db/pglite-driver.ts): in a CPU profile of this line the main thread was busy 14.5 s against 16.2 s before, and the rate was 52,152–56,992 rows/s against 46,815–54,407 in alternating runs (the machine's drift is larger than the change). In the same profile the main thread is idle half the time: the upload's phases run one after the other (the file parsed and identified on the upload threads, 5.8 s and 7.1 s busy, then stored by PGlite, whose COPY of the testcases took 6.2 s of 1,366 statements).",
  `— 304 path (line 2, ${lines.filter((l) => l.name.startsWith("2.")).map((l) => `${l.ratio?.toFixed(2)} ${l.met ? "met" : "NOT MET"}`).join(" / ")} in this run): each hot-path line's note gives the server CPU time per request of Tessera and of the empty route. In process (app.inject, no sockets), Tessera's 304 adds 2–5 µs to the empty route's ~40 µs: the onRequest hooks (request id, API key), the JSON body guard and schema validation, the API-key and reference-cache lookups, the ETag and x-request-id headers; a cached resolution is answered without a promise, a database query or a key built from the body. Over HTTP about half of either server's time is the kernel's loopback write, with one read and one write system call per request for both (strace). The same load's CPU per request varies from round to round by up to half, in user and system time alike (29–59 µs for Tessera, 26–40 µs for the empty route in one series of rounds on this machine): the shared VM, not the code, hence five alternating rounds and their median.`,
  "— Span ingestion (line 10): in process (bench/span-work.ts), the OTLP threads' work is 13–15 µs a span: normalising 5.5–6 (the ag namespaces decoded into a Map in key order, unflattened, cleaned), the COPY text 2.8 (JSON.stringify of four jsonb columns), the roll-ups about 2 (most of it the garbage collection the batch's live spans make), protobuf decoding 1.5, reading the OTLP objects 0.8; it was 17–23 µs before the flat stage stopped deleting keys from an object (V8 then keeps it as a dictionary). On PGlite the main thread is the limit: its COPY of these rows costs 22–26 µs a span at 100,000–600,000 stored spans (measured alone; the attributes' GIN index is about 6.7 µs of it, full_page_writes, wal_level and a larger buffer pool change it by less than the spread), and while it runs the event loop cannot take the next request to a thread, so with two requests in flight the threads and the database alternate more than they overlap; loading a request in pieces with turns of the loop between them made them overlap (thread work during a COPY 11% → 57–70%) but not faster, since each piece's own statement and commit cost what the overlap gained on two cores. In a CPU profile of the ingestion alone (50 s, AMD EPYC), the main thread was busy 79% of the time: PGlite's WebAssembly 59% of that, the page writes of its files 19% (by strace, half of the 8 KB writes went to the attributes' GIN index, as its pending list is merged into the tree), garbage collection 8%; V8's collector threads used 0.3 of a core and the machine was 76% busy. Raising `work_mem` (the memory a GIN pending-list merge gathers entries in) to 16–64 MB gave 19,273–20,153 spans/s against 17,600–19,108 at the default, within the drift; with a 128 MB buffer pool as well, 20,739. Also tried on PGlite and not kept: a 32 MB GIN pending list (gin_pending_list_limit, with and without a 32 MB work_mem) ingested at 0.20–0.21 against 0.20, and the attribute query of line 12 then took 1.6 s at p99 instead of 0.14 s (every query scans the pending list); each request's COPY in pieces of 64–128 KB within its transaction, with a turn of the event loop between them, 0.20 against 0.19. On PostgreSQL the server's work and the database's run side by side. The spans table's key and indexes are not what is missing there: with psql, `COPY` of 100,000 of these rows into a table made `LIKE spans INCLUDING ALL` took 1.8–2.9 s against 1.5–1.7 s into the same table without its indexes, in alternating runs. New WAL files are not filled with zeros first since (`wal_init_zero` off, src/db/pglite-driver.ts): COPY of 300,000 of these spans in a process of its own (bench/span-copy.ts) wrote 1,355 MB, 470 MB of it zeros for new WAL files, and PGlite's thread spent 40.5–41.1 µs a span against 35.6–36.4 without them (three alternating runs each); this line, in alternating runs on a 2-core AMD EPYC in a slow hour, 17,946 and 15,202 spans/s against 14,852 and 14,057 before (ratios 0.17, 0.13 against 0.12, 0.12). Spans are now written as binary COPY (src/db/copy-binary.ts: each field its length and bytes, so the database parses no uuid, time or delimiter): PGlite's COPY of 300,000 of these spans in a process of its own cost 25.1–26.0 µs a span against 30.4–30.9 as text (three alternating runs), and the OTLP threads' work from request to COPY data stayed the same within the spread (14.3–17.8 µs a span against 17.4–19.0, five runs each). The baseline loads the same rows in the same format, and PostgreSQL loads binary rows faster too (86,000–124,000 spans/s against 81,000–93,000 as text, same hour), so the ratios fell where the rates did not: on PGlite 15,056 and 21,300 spans/s against 16,442 and 18,488 as text (ratios 0.18, 0.17 against 0.20, 0.20), on PostgreSQL 27,563, 26,363 and 24,079 against 30,141 and 27,508 (alternating runs on a machine whose baseline drifted by half within the hour). An OTLP thread read a whole request before writing any of its rows, so every span object of the request stayed alive to its end and each of the thread's young-generation collections copied them again (about 7 ms a collection, 4.5 s and 3.4 s for the two threads in a run of this line on PostgreSQL; the server's 16 MB semi-space, server-flags.ts, sizes the threads' young generation too); it now reads, rolls up and writes a request a trace at a time (src/tracing/otlp/export-spans.ts): bench/span-work.ts 22.4–25.1 → 13.3–15.3 µs of CPU a span, and in alternating runs of this line on a 2-core AMD EPYC the server's CPU went from 36.7–38.5 s to 25.3–27.2 s on PostgreSQL (25,781 and 26,992 → 33,046 and 31,047 spans/s, peak RSS 351–357 → 300–305 MB; the ratios, against baselines of 87,727–131,414 spans/s, 0.27 and 0.21 → 0.27 and 0.35) and from 80.3 to 71.6 s on PGlite (15,974 → 17,067 spans/s, 0.19 → 0.20: there PGlite's thread stays the limit). The attributes' GIN index gave way to one on the spans' labels (their attributes without ag.data, ag.metrics, ag.references and strings over 128 characters, built with the row: src/tracing/span-labels.ts, migration 036), and the time index is kept oldest first, so spans arriving in time order go in at its right end: bench/span-copy.ts 19.1–19.6 → 16.2–16.5 µs a span (alternating runs), this line alone 29,663 → 35,238–35,982 spans/s on PGlite and 41,476 → 45,168 on PostgreSQL in the same hour, and in a full run 22,748 → 25,157 on PGlite (a server that has run every earlier line, against 35,000 alone). The baseline's rows carry the labels too, and load slower for them (155,000–199,000 spans/s without, 108,000–163,000 with).",
  "— Noisy neighbour (line 8, the code sandbox flood): the flood keeps a sandbox thread busy with runaway scripts on one of the two cores, so the measured requests and the bench's clients share what is left. On a machine whose quiet p99 was 1.0–1.5 ms, with the sandbox threads at the process's priority (or nice 5) the flooded p99 was 2.45–3.24 ms (ratios 1.99–2.45 in seven runs); at nice 19, with a run's limit counted in its thread's CPU time so that a busy machine does not cut a run short, 1.77–2.43 ms (ratios 1.69–2.33 in four runs). On a slower machine (quiet p99 3.5 ms) the ratio was 1.82 at the process's priority: the flood adds about a millisecond, which weighs more against a faster machine's quiet p99.",
  "— Invoke overhead: timed inside the server (1,000 sequential calls on PGlite), a call takes 0.74–0.87 ms at p50 from its request to its answer, of which the provider's answer 0.37 ms. The slow calls come in runs, one for each batch of traces written (200 traces, every 0.2–0.3 s at this rate): the batch goes into the embedded database in pieces of about 2 ms of its thread, about one piece a call, and the call that arrives during a piece waits for it and then runs slower (1.3–2.0 ms against 0.9) while the piece's work has the caches; outside those runs, a few calls wait 5–25 ms on a garbage collection or on the provider stub's own answer (p99 of the provider call as the server saw it: 4.6 ms). With no trace written at all the overhead's p99 was still +4.1–4.4 ms (two runs). Tried and not kept: writing each piece only at a moment with no request in flight (the next request then meets the piece just the same: Tessera's p99 7.2–11.1 ms against 7.3–9.2 ms, three alternating runs each) and, with it, pieces of 1 ms (p99 5.7–10.1 ms, but the evaluation line on PGlite ran at 1,380 against 1,547 scenarios/s in one run each, each COPY statement costing about 0.3–0.4 ms however small). An invocation's trace costs PGlite 0.2–0.3 ms of its thread in the server (two spans; 34–55 µs a span in a process of its own, more in pieces): that work is what stands between the p99 and its target. On a 2-core AMD EPYC, 3,000 sequential calls to a fresh server, each timed by the client: the first thousand ran at p50 2.1 ms against 1.2–1.3 ms for the next two (the line warms up with as many calls as it measures); the server's GC trace showed a minor collection every 150–200 ms (every 120–150 calls: about 100 KB allocated a call), each pausing its thread 2–8 ms, and the slow calls came in runs of five to eight at each batch of 200 traces written. Calls 1,050–3,050 had a p99 of 5.6–6.7 ms with no trace written at all (the writer's `add` made a no-op, two runs), 8.0–10.7 ms as the server runs, and 7.4–8.7 ms with each trace turned into its COPY line in a Buffer as it came instead of kept as objects until its batch (two runs each, within the spread; not kept). A call met the batch being written at each of its turns of the event loop (its request, the provider's answer, its answer): with 2 ms pieces the calls that met a batch took 4–10 ms, one to three pieces each. Invocations' traces now go in pieces of about 0.5 ms, each started at a moment with no request in flight (or after 2 ms of waiting for one; src/http/requests-in-flight.ts), so a call meets at most the piece that began just before it arrived; an evaluation's rows still go in pieces of about 2 ms. In alternating runs of this line on a 2-core AMD EPYC whose direct p99 was 0.33–0.72 ms: Tessera's p99 4.06–4.94 ms (overhead +3.35 to +4.61) against 6.28–6.30 ms (+5.66 to +5.98) before. The calls left over the target (7 and 15 of 1,000 in two runs) no longer come with the batches: they are the server's minor collections (every 30–40 calls, 1–6 ms each, about 130 KB allocated a call by the sampling heap profiler: the AI SDK's request and answer 25 KB, the route 22 KB, the trace's rows 13 KB, the embedded database's protocol 15 KB) and the provider stub's own slow answers.",
  "— Download (line 5, no target): rows are read back by chunk of ids, one page read ahead while the last is written, and written through csv-stringify with the testcase id and dedup id columns (150 MB against COPY's 83 MB). The CSV's columns come from the revision's column counts (an upload's revision has them) and one aggregate over the testset's rows for the metadata columns; before, every row was read twice, once for the columns: 3.4 s → 1.3 s for 100,000 rows on this machine. Each row is an index lookup by id: the rows of a file are stored in id order (content hashes), not in file order.",
  "— Evaluation throughput (line 8): three rounds of a run and the direct calls, back to back in alternating order, after a warm-up run; the line is the median round's. A batch's provider calls, evaluators and traces run on the server's evaluation thread (src/evaluations/execution/cell-thread.ts), its reads and writes on the main thread, which also runs PGlite's queries. On a machine whose direct baseline ran at 2,000–4,800 calls/s (drifting by a factor of two within minutes), in 10,000-testcase runs of a fresh server (rounds after the first, CPU read from /proc): on PGlite, main thread 341–399 µs of CPU a scenario, evaluation thread 349–421 µs, V8's four garbage-collection helpers 24–49 µs each, the stub 129–180 µs; on PostgreSQL, main thread 100–150 µs and evaluation thread 370–540 µs, which is then the busiest. On an AMD EPYC machine (PostgreSQL, three 10,000-testcase rounds and a warm-up, pg_stat_statements): COPY into spans took 5,076 ms for 93,000 spans (55 µs a span, about half of the database's time), the results' COPY 1,369 ms (93,000 rows), the scenarios' metrics 869 ms (31,000 rows), their status updates 518 ms; PostgreSQL's processes used 206–264 µs of CPU a scenario, the evaluation thread 322–393, the main thread 83–97, and the machine's cores were 79–83% busy. Without the spans' attributes index the database's share fell to 206–221 µs, the ratio staying within its spread. On PGlite, COPY of the spans of such a run (81,291 rows, 200 a statement, in a process of its own) cost 60 µs a span with the spans' indexes, 47 without the attributes index, 33 without any, 24 into json columns without any: the spans are the largest part of PGlite's work for an evaluation, as they are on PostgreSQL. Per index, with psql on PostgreSQL (30,000 spans of such a run, three loads each): the spans' attributes index is about 35% of the COPY's time, their references index 13%; an index of root spans by hex trace id, which the `traces` view used, was 15–20% (1,464–1,611 ms with it, 1,234–1,348 without) and is gone: results find their trace's root span through the spans' key (migration 034; in the run, COPY into spans went from 70 to 61 µs a span). The two foreign keys of the scenarios' metrics rows cost 10 µs a row on PostgreSQL (31,000 rows inserted: 637–651 ms with them, 320–325 without) and 18 on PGlite; they remain, since a client's metrics and a refresh's are written outside a transaction that locks their scenarios, and a key's check is what keeps a deleted scenario from getting metrics. A run's first batches start once the plan's first transaction commits; it plans 1,000 testcases (5,000 before): the first batch started 78–156 ms after the run was created, against 246–294 ms. In the evaluation thread's profile (PostgreSQL), the socket write of each provider request is 15% of its busy time (on a loopback socket the write delivers the request and wakes the stub's process; the direct baseline pays the same), garbage collection 13%, building Node's http request 8%, the AI SDK's parsing and validation of the answer about 6%, the trace lines 6%. Timed per batch inside the server (PGlite, 159 batches of 200 scenarios, same machine): reading what the batch needs 5 ms, waiting for an invoking turn 14, invoking 94, waiting for the traces to be written 180 (the trace writer's COPYs run one after another for every batch, and a batch's results wait for its traces), the store's transaction 24: the spans' writes on the embedded database are the pipeline's limit. With three batches claimed per invoking one instead of two, the wait for traces grew to 263 ms and the line stayed at 0.29; writing each flush's traces in one COPY instead of pieces of about 2 ms gave 0.29–0.32 against 0.28 (two runs each), within the drift. Costs found by profiling and removed: a metrics refresh at the run's end that read every result and trace back (0.8–1.0 s of a 10,000-testcase run on PGlite, with the pipeline drained: batches now keep their metrics as they run), a foreign key check per result (the main thread's CPU from 417–471 to 341–399 µs a scenario; 1,372–1,434 to 1,685–1,729 scenarios/s), traces copied between the threads and through a Blob into PGlite (with the metrics change, 471–587 to 373–432 µs; 1,297–1,309 to 1,569–1,581 scenarios/s); earlier, the invocations on the main thread (moved to the evaluation thread, with a batch storing while the next invokes), traces inserted as jsonb (now COPY into json columns), testcases read with every column when a batch needs their id and data, results inserted from JSON (now COPY), foreign keys that repeated the code's checks, a second lookup of earlier results by batches the plan had found none for, Node's fetch under each provider call (0.29–0.38 ms of CPU a call through the AI SDK against 0.15 ms over node:http with keep-alive, on a faster machine), then node:http under it (undici's request API: 72–118 µs of client CPU a call against 131–179 µs, 20,000 loop-back calls 16 at a time on a machine whose direct baseline ran at 1,400–2,700 calls/s; with the trace lines' depth check made cheaper, the evaluation thread's CPU a scenario on PostgreSQL went from 600–789 µs in the rounds of two runs to 518–741 in those of three, within that hour's drift), the AI SDK's generateText around each call (calls go to the provider model's doGenerate), a metrics refresh quadratic in the run's size, and random bytes drawn from the system for each id. Tried and not kept: two evaluation threads (on PostgreSQL their CPU together was 544–787 µs a scenario against 370–377 µs for one, at 1,085–1,537 against 1,784–1,833 scenarios/s; on PGlite slower too), V8's single-threaded garbage collection (the evaluation thread's CPU 505–564 against 428–438 µs, slower), a V8 platform pool of 1 or 2 threads and 500-scenario batches (no change beyond the machine's drift), testcases read by a uuid[] of ids with `= ANY` (faster on PGlite, but PostgreSQL then filtered each of a large project's rows against the whole list: the 1,000,000-row download took 117 s instead of 8–16 s), request headers built without Headers and answers read by events instead of an async iterator (no change), PGlite on a thread of its own (copying each statement's parameters and rows between threads cost more than the parallelism gave; tried again as a worker thread answering statements by message, a transaction held open there between its statements, on a machine whose spans COPY baseline ran at 120,000–130,000 spans/s: this line fell from 0.27–0.31 to 0.23–0.26, the database's thread using 12.1 s of CPU where the main thread had used 15.1 s for the database and everything else, V8's collector threads 8.7 s against 6.7 s, and every other statement waiting while a transaction's next statement crossed the threads; OTLP ingestion on PGlite rose from 0.20 to 0.23–0.25, the invoke overhead's p99 fell from +8.5 to +6.5 ms and the 1-row evaluation beside 4 queued runs from 0.96 to 0.42 s, while uploads stayed at 0.035–0.037), and omitting default-valued fields from bulk inserts (within noise). With new WAL files no longer filled with zeros (src/db/pglite-driver.ts), this line on PGlite in alternating runs (2-core AMD EPYC, a slow hour): the main thread's CPU a scenario 515–569 and 490–560 µs against 567–611 and 557–684 before, scenarios/s 1,316–1,641 and 1,392–1,767 against 1,249–1,526 and 1,241–1,600 (median ratios 0.39, 0.46 against 0.38, 0.40). With the traces written as binary COPY (the spans' COPY about a fifth cheaper on PGlite), one run each in a slow hour: main thread 582–658 µs a scenario against 577–748, median round ratio 0.41 against 0.35. Traced with strace for 10 s of such a run before the change, the server wrote 142 MB to its WAL (64 MB of it zeros for new files) and 100 MB of data pages, 45 MB of them the spans' heap. Timed statement by statement inside the server (PGlite's protocol calls wrapped; the line's warm-up and three rounds on a 2-core AMD EPYC about 2.5 times slower than the machine above): in 2 ms pieces an evaluation's spans went about 9 to a COPY statement, whose fixed cost (0.5–0.9 ms: parse, bind, set-up, commit) made them 20.4 s of PGlite's 44.5 s; they now go in pieces of about 8 ms and at most 32 KB of COPY data, about 24 a statement (past about 8 new pages at once a COPY extends its file with fallocate, which the in-memory PGlite of the tests serves by copying the whole file). Job claims (4–5 ms each on PGlite, the recursive query parsed and planned every time) were made for every queue of every worker at each job's end and at each enqueue: 682 in the run, 353 since a worker claims only from the queues a notice named, a job of theirs ended or its poll reached. PGlite's time in the line, timed the same way, fell to 34.2 s; in alternating runs without the timing the main thread's CPU a scenario was 1,068–1,202 µs against 1,046–1,291 before, and the line 0.49 and 0.46 against 0.36 and 0.52 (both cores are busy through the line, with the evaluation thread's and the provider stub's work, so the database's share moves it by little and the baseline's drift by more); what is left in PGlite: the spans 14.4 s, the results' COPY 3.6 s, the metrics' 2.2 s, the claims 1.8 s, the status UPDATE 1.6 s, reading the testcases 1.5 s.",
]);
process.stdout.write(`\nwrote ${path}\n`);
