import autocannon from "autocannon";

/**
 * One autocannon load in a process of its own (`node bench/load-client.ts '<json options>'`), printing
 * its result as JSON: every hot-path figure and its baseline start from the same fresh client, not
 * from a bench process whose heap holds the loads before.
 */
const { expect, ...options } = JSON.parse(process.argv[2]) as Parameters<typeof autocannon>[0] & { expect: "2xx" | "3xx" };
const r = await autocannon(options);
const expected = r[expect];
process.stdout.write(JSON.stringify({ rps: r.requests.average, requests: r.requests.total, p50: r.latency.p50, p99: r.latency.p99, failures: r.requests.total - expected + r.errors + r.timeouts }));
