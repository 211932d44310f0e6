import { exportRequests, spanRows } from "./tracing.ts";

/**
 * The OTLP ingestion's work per span without a database or HTTP (`node bench/span-work.ts [spans]`): the bench's
 * requests (line 10) decoded, read, normalised, rolled up and written as binary COPY rows, in a process of its
 * own. Prints
 * `{spans, cpuUs, cpuUsPerSpan}` for the second half of the run (the first warms the code up).
 */
const total = Number(process.argv[2] ?? 200_000);
const requests = [...exportRequests(total, Date.now())];
let bytes = 0;
const work = (request: Buffer) => {
  bytes += spanRows(request).length;
};
const half = requests.length >> 1;
for (const request of requests.slice(0, half)) work(request);
const before = process.cpuUsage();
for (const request of requests.slice(half)) work(request);
const used = process.cpuUsage(before);
const cpuUs = used.user + used.system;
const spans = (requests.length - half) * (total / requests.length);
process.stdout.write(`${JSON.stringify({ spans, cpuUs, cpuUsPerSpan: +(cpuUs / spans).toFixed(2), bytes })}\n`);
