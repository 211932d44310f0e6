import { normalizeSpan } from "../src/tracing/otlp/normalize.ts";
import { otlpSpans } from "../src/tracing/otlp/otlp-spans.ts";
import { decodeExportRequest } from "../src/tracing/otlp/protobuf.ts";
import { rollUp } from "../src/tracing/rollup.ts";
import { spanLine } from "../src/tracing/spans.ts";
import { exportRequests } from "./tracing.ts";

/**
 * The OTLP ingestion's work per span without a database or HTTP (`node bench/span-work.ts [spans]`): the bench's
 * requests (line 10) decoded, read, normalised, rolled up and written as COPY text, in a process of its own. Prints
 * `{spans, cpuUs, cpuUsPerSpan}` for the second half of the run (the first warms the code up).
 */
const total = Number(process.argv[2] ?? 200_000);
const scope = { projectId: "00000000-0000-7000-8000-000000000000", userId: null };
const requests = [...exportRequests(total, Date.now())];
let chars = 0;
const work = (request: Buffer) => {
  const { spans } = otlpSpans(decodeExportRequest(request), "bytes");
  for (const span of rollUp(spans.map(normalizeSpan))) chars += spanLine(scope, span).length;
};
const half = requests.length >> 1;
for (const request of requests.slice(0, half)) work(request);
const before = process.cpuUsage();
for (const request of requests.slice(half)) work(request);
const used = process.cpuUsage(before);
const cpuUs = used.user + used.system;
const spans = (requests.length - half) * (total / requests.length);
process.stdout.write(`${JSON.stringify({ spans, cpuUs, cpuUsPerSpan: +(cpuUs / spans).toFixed(2), chars })}\n`);
