import { execFile } from "node:child_process";
import { createReadStream, createWriteStream, rmSync, statSync } from "node:fs";
import { once } from "node:events";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { pipeline } from "node:stream/promises";
import { promisify } from "node:util";
import { from as copyFrom } from "pg-copy-streams";
import { BINARY_HEADER, BINARY_TRAILER } from "../src/db/copy-binary.ts";
import { exportSpanChunks } from "../src/tracing/otlp/export-spans.ts";
import { attributes, exportRequest, type TestSpan } from "../test/tracing/otlp-support.ts";
import type { Api } from "./api.ts";
import { withClient } from "./copy-baseline.ts";
import { cpuTimeOf, type Child } from "./processes.ts";
import type { Line } from "./report.ts";

/*
 * The tracing lines: OTLP ingestion of many spans (spans/s against PostgreSQL's COPY of the same rows into a
 * plain table, and the server's peak RSS), then a trace by id and a filtered query over what was stored (p99
 * against the empty route given the same request).
 */

const GB = 1024 ** 3;
const SPANS_PER_TRACE = 10;
const TRACES_PER_REQUEST = 100;
const CUSTOMERS = 1000;
const DAY_MS = 24 * 3600 * 1000;
/** The stored spans' start times spread over the week before the run. */
const SPREAD_MS = 7 * DAY_MS;
const hex = (n: number, bytes: number) => n.toString(16).padStart(bytes * 2, "0");

/** The spans of trace `t` of `traces`: a workflow root and nine steps, every third one a priced chat call. */
function traceSpans(t: number, traces: number, now: number): TestSpan[] {
  const traceId = `${hex(now, 8)}${hex(t, 8)}`;
  const rootId = hex(t * SPANS_PER_TRACE + 1, 8);
  const startMs = now - SPREAD_MS + Math.floor((t * SPREAD_MS) / traces);
  const at = (ms: number) => BigInt(startMs + ms) * 1_000_000n;
  const customer = `customer-${t % CUSTOMERS}`;
  const spans: TestSpan[] = [{
    traceId, spanId: rootId, name: "workflow", start: at(0), end: at(900),
    attributes: attributes({
      "ag.type.node": "workflow",
      "ag.data.inputs": `@ag.type=json:{"question":"What is the capital of country ${t}?","country":"c${t % 200}"}`,
      "ag.data.outputs": `The capital of country ${t} is city ${t}.`,
      "ag.meta.customer": customer,
      "ag.session.id": `session-${t % 5000}`,
      "ag.refs.application.slug": "capitals",
    }),
  }];
  for (let j = 1; j < SPANS_PER_TRACE; j++) {
    const chat = j % 3 === 0;
    spans.push({
      traceId, spanId: hex(t * SPANS_PER_TRACE + 1 + j, 8), parentSpanId: rootId, name: chat ? "chat" : `step-${j}`,
      start: at(j * 80), end: at(j * 80 + 70),
      attributes: attributes({
        "ag.type.node": chat ? "chat" : "task",
        "ag.data.inputs.text": `step ${j} of trace ${t}`,
        "ag.meta.customer": customer,
        ...(chat ? {
          "ag.meta.response.model": "gpt-4o-mini",
          "ag.metrics.unit.tokens.prompt": 120 + j,
          "ag.metrics.unit.tokens.completion": 30,
        } : {}),
      }),
    });
  }
  return spans;
}

/** The OTLP requests for `spans` spans, encoded one at a time as they are asked for. */
export function* exportRequests(spans: number, now: number): Generator<Buffer> {
  const traces = spans / SPANS_PER_TRACE;
  for (let first = 0; first < traces; first += TRACES_PER_REQUEST) {
    const batch: TestSpan[] = [];
    const last = Math.min(traces, first + TRACES_PER_REQUEST);
    for (let t = first; t < last; t++) batch.push(...traceSpans(t, traces, now));
    yield exportRequest(batch);
  }
}

/** Sends every request with two in flight (encoded beforehand: the bench's work is not timed); ms and bytes. */
async function ingest(api: Api, requests: Buffer[]): Promise<{ ms: number; bytes: number }> {
  const bytes = requests.reduce((n, request) => n + request.length, 0);
  let next = 0;
  const started = performance.now();
  const sender = async () => {
    while (next < requests.length) {
      const body = requests[next++]!;
      const res = await fetch(`${api.url}/api/otlp/v1/traces`, {
        method: "POST", body: new Uint8Array(body),
        headers: { authorization: `ApiKey ${api.key}`, "content-type": "application/x-protobuf" },
      });
      const answer = Buffer.from(await res.arrayBuffer());
      // An error's answer is a google.rpc.Status: its message is the printable part.
      const message = answer.toString("latin1").replace(/[^\x20-\x7e]/g, "");
      if (res.status !== 200) throw new Error(`OTLP export → ${res.status}: ${message}`);
    }
  };
  await Promise.all([sender(), sender()]);
  return { ms: performance.now() - started, bytes };
}

const SCOPE = { projectId: "00000000-0000-7000-8000-000000000000", userId: null };

/**
 * The very rows the server stores for one request's spans (what its OTLP threads do: decoding, normalising, rolling
 * up, writing), as binary COPY tuples without the header and trailer.
 */
export function spanRows(request: Buffer): Buffer {
  const { chunks } = exportSpanChunks(request, true, Number.POSITIVE_INFINITY, SCOPE, Number.POSITIVE_INFINITY);
  return Buffer.concat(chunks.map((chunk) => chunk.subarray(BINARY_HEADER.length, -BINARY_TRAILER.length)));
}

/** The rows of every request, as one binary COPY's data in a file. */
async function copyFile(work: string, requests: Buffer[], label: string): Promise<string> {
  const file = join(work, `spans-${label}.copy`);
  const out = createWriteStream(file);
  out.write(BINARY_HEADER);
  for (const request of requests) {
    if (!out.write(spanRows(request))) await once(out, "drain");
  }
  out.write(BINARY_TRAILER);
  out.end();
  await once(out, "finish");
  return file;
}

const PLAIN = `(project_id uuid, trace_id uuid, span_id uuid, parent_id uuid, trace_type text, span_type text,
  span_kind text, span_name text, start_time timestamptz, end_time timestamptz, status_code text, status_message text,
  session_id text, user_id text, agent_id text, attributes jsonb, "references" jsonb, links jsonb, events jsonb,
  created_by_id uuid, labels jsonb)`;

/** PostgreSQL's COPY of the file into a plain table (no key, no index): the floor under span ingestion. */
async function copyBaseline(databaseUrl: string, file: string): Promise<{ rows: number; ms: number }> {
  return withClient(databaseUrl, async (client) => {
    await client.query("DROP TABLE IF EXISTS bench_spans");
    await client.query(`CREATE TABLE bench_spans ${PLAIN}`);
    const started = performance.now();
    const sink = client.query(copyFrom("COPY bench_spans FROM STDIN WITH (FORMAT binary)"));
    await pipeline(createReadStream(file), sink);
    const ms = performance.now() - started;
    await client.query("DROP TABLE bench_spans");
    return { rows: Number(sink.rowCount), ms };
  });
}

interface QueryLoad {
  rps: number;
  requests: number;
  p50: number;
  p99: number;
  failures: number;
}

const run = promisify(execFile);

/** `connections` clients for `seconds` from a fresh process (bench/load-client.ts). */
async function queryLoad(
  url: string, method: "GET" | "POST", body: string | undefined, key: string, seconds: number, connections: number,
): Promise<QueryLoad> {
  const options = {
    url, method, connections, duration: seconds, expect: "2xx",
    headers: { authorization: `ApiKey ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body } : {}),
  };
  const script = fileURLToPath(new URL("./load-client.ts", import.meta.url));
  const { stdout } = await run(process.execPath, [script, JSON.stringify(options)], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout) as QueryLoad;
}

const fmtRate = (n: number) => `${Math.round(n).toLocaleString("en-US")} spans/s`;
const mb = (bytes: number) => `${Math.round(bytes / 1024 ** 2)} MB`;

/**
 * Line 10: ingestion of `spans` spans over OTLP, then lines 11 and 12: a trace by id and an attribute equality
 * within a day, at that many stored spans, p99 against the empty route (`emptyUrl`).
 */
export async function tracingLines(
  label: string, api: Api, server: Child, spans: number, work: string, baselineUrl: string, emptyUrl: string,
  seconds: number,
): Promise<Line[]> {
  const now = Date.now() - 60_000;
  const requests = [...exportRequests(spans, now)];
  server.resetPeak();
  const cpuBefore = cpuTimeOf(server.pid);
  const sent = await ingest(api, requests);
  const cpu = (cpuTimeOf(server.pid) - cpuBefore) / 1e6;
  const peak = server.peakRss();
  const file = await copyFile(work, requests, label);
  requests.length = 0;
  const base = await copyBaseline(baselineUrl, file);
  const fileBytes = statSync(file).size;
  rmSync(file);
  const rate = spans / (sent.ms / 1000);
  const baseRate = base.rows / (base.ms / 1000);
  const lines: Line[] = [{
    name: `10. OTLP ingestion of ${spans.toLocaleString("en-US")} spans (${label})`,
    figure: `${fmtRate(rate)}, RSS ${mb(peak)}`,
    baseline: `${fmtRate(baseRate)} (COPY)`,
    ratio: rate / baseRate,
    target: "≥ 0.25, RSS < 1 GB",
    met: rate / baseRate >= 0.25 && peak < GB,
    note: `${(sent.ms / 1000).toFixed(1)} s for ${(spans / SPANS_PER_TRACE).toLocaleString("en-US")} traces of ` +
      `${SPANS_PER_TRACE} spans (a workflow root, nine steps of which three priced chat calls), sent as ` +
      `${spans / SPANS_PER_TRACE / TRACES_PER_REQUEST} OTLP protobuf requests of ` +
      `${SPANS_PER_TRACE * TRACES_PER_REQUEST} spans (${mb(sent.bytes)} in all, encoded before the clock ` +
      `starts), two in flight; server CPU ${cpu.toFixed(1)} s. Each answer came once its ` +
      `spans were committed. Baseline: \`COPY … FROM STDIN WITH (FORMAT binary)\` via pg-copy-streams of the ` +
      `same rows (the server's own normaliser and binary COPY rows, their labels included, ${mb(fileBytes)}) into ` +
      `a plain table of the spans' columns with no key or index, on the local PostgreSQL, ` +
      `${(base.ms / 1000).toFixed(1)} s.`,
  }];

  const connections = 8;
  const traceId = `${hex(now, 8)}${hex(Math.floor(spans / SPANS_PER_TRACE / 2), 8)}`;
  const traceLoad = await queryLoad(`${api.url}/api/tracing/traces/${traceId}`, "GET", undefined, api.key, seconds,
    connections);
  const traceBase = await queryLoad(`${emptyUrl}/api/tracing/traces/${traceId}`, "GET", undefined, api.key, seconds,
    connections);
  lines.push(queryLine(`11. a trace by id at ${spans.toLocaleString("en-US")} spans (${label})`, traceLoad, traceBase,
    `GET /api/tracing/traces/{trace_id}, a trace of ${SPANS_PER_TRACE} spans in the middle of the week`, connections,
    seconds));

  const dayEnd = now - 3 * DAY_MS;
  const query = JSON.stringify({
    focus: "span", oldest: new Date(dayEnd - DAY_MS).toISOString(), newest: new Date(dayEnd).toISOString(),
    limit: 100,
    filter: { conditions: [{ field: "attributes", key: "ag.meta.customer", operator: "is", value: "customer-42" }] },
  });
  const check = await fetch(`${api.url}/api/tracing/spans/query`, {
    method: "POST", body: query, headers: { authorization: `ApiKey ${api.key}`, "content-type": "application/json" },
  });
  const found = (await check.json()) as { count?: number };
  const filterLoad = await queryLoad(`${api.url}/api/tracing/spans/query`, "POST", query, api.key, seconds,
    connections);
  const filterBase = await queryLoad(`${emptyUrl}/api/tracing/spans/query`, "POST", query, api.key, seconds,
    connections);
  lines.push(queryLine(
    `12. attribute equality within a day at ${spans.toLocaleString("en-US")} spans (${label})`,
    filterLoad, filterBase,
    `POST /api/tracing/spans/query, focus span, a one-day window (a seventh of the spans), ` +
    `attributes ag.meta.customer is one of ${CUSTOMERS} values, limit 100: ${found.count ?? 0} spans answered`,
    connections, seconds,
  ));
  return lines;
}

function queryLine(
  name: string, got: QueryLoad, base: QueryLoad, what: string, connections: number, seconds: number,
): Line {
  return {
    name,
    figure: `p99 ${got.p99} ms, p50 ${got.p50} ms, ${Math.round(got.rps)} req/s`,
    baseline: `p99 ${base.p99} ms (empty route)`,
    ratio: got.p99 / Math.max(base.p99, 1),
    target: "reported",
    met: got.failures === 0 ? null : false,
    note: `${what}; autocannon in a fresh client process, ${connections} connections, ${seconds} s; the ratio is ` +
      `Tessera's p99 over the empty route's p99 (at least 1 ms) under the same request and load` +
      `${got.failures ? `; ${got.failures} unexpected answers` : ""}.`,
  };
}
