import http from "node:http";
import type { AddressInfo } from "node:net";
import { promptConfig, type Api } from "./api.ts";
import type { Line } from "./report.ts";

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
const ms = (value: number) => `${value.toFixed(1)} ms`;

/** A subscriber on 127.0.0.1 that answers 200 at once and notes when each delivery arrived. */
async function fastReceiver() {
  const arrivals: number[] = [];
  let notify: (() => void) | null = null;
  const server = http.createServer((req, res) => {
    req.resume().on("end", () => {
      arrivals.push(performance.now());
      res.writeHead(200).end();
      notify?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const waitFor = (count: number, timeoutMs = 60_000) => new Promise<void>((resolve, reject) => {
    const fail = () => reject(new Error(`${arrivals.length} of ${count} deliveries within ${timeoutMs} ms`));
    const timer = setTimeout(fail, timeoutMs);
    const check = () => {
      if (arrivals.length < count) return;
      clearTimeout(timer);
      notify = null;
      resolve();
    };
    notify = check;
    check();
  });
  return { url, arrivals, waitFor, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/**
 * Webhooks: the time from a deploy's answer to its subscriber receiving the event (one deploy at a time, p50/p99),
 * then the deliveries per second to a fast subscriber when ten subscriptions each get every deploy of a burst.
 */
export async function webhookLine(api: Api, label: string, deploys: number): Promise<Line> {
  const receiver = await fastReceiver();
  try {
    const slug = `webhook-bench-${Date.now()}`;
    const app = (await api.post("/simple/applications/", { application: { slug, data: promptConfig(0) } })).application;
    const subscribe = () => api.post("/webhooks/subscriptions/", {
      subscription: { data: { url: receiver.url, event_types: ["environments.revisions.committed"] } },
    });
    const first = (await subscribe()).subscription;
    const deploy = () => api.post("/applications/revisions/deploy", {
      application_variant_ref: { id: app.variant_id }, environment_ref: { slug: "production" },
    });
    const latencies: number[] = [];
    const answers: number[] = [];
    for (let i = 0; i < deploys + 20; i++) {
      const started = performance.now();
      await deploy();
      const answered = performance.now();
      await receiver.waitFor(i + 1);
      if (i >= 20) { // the first twenty warm up
        latencies.push(Math.max(0, receiver.arrivals[i] - answered));
        answers.push(answered - started);
      }
    }
    latencies.sort((a, b) => a - b);
    answers.sort((a, b) => a - b);

    await api.post(`/webhooks/subscriptions/${first.id}/stop`);
    for (let i = 0; i < 10; i++) await subscribe();
    receiver.arrivals.length = 0;
    const burst = Math.max(20, Math.floor(deploys / 2));
    const began = performance.now();
    for (let i = 0; i < burst; i++) await deploy();
    const committed = performance.now();
    await receiver.waitFor(burst * 10);
    const rate = (burst * 10) / ((receiver.arrivals[burst * 10 - 1] - began) / 1000);
    const p50 = percentile(latencies, 0.5);
    const p99 = percentile(latencies, 0.99);
    return {
      name: `webhooks: deploy → subscriber (${label})`,
      figure: `p50 ${ms(p50)}, p99 ${ms(p99)}; ${Math.round(rate).toLocaleString("en-US")} deliveries/s`,
      baseline: `the deploy's own answer: p50 ${ms(percentile(answers, 0.5))}, p99 ${ms(percentile(answers, 0.99))}`,
      ratio: null,
      target: "reported",
      met: null,
      note: `${deploys} deploys one at a time to a subscriber on 127.0.0.1 answering 200 at once, after 20 to warm ` +
        `up: time from the deploy's answer to the delivery's arrival. Then ${burst} deploys in a row, each to 10 ` +
        `subscriptions of the same subscriber (${burst * 10} signed deliveries through the job queue): deliveries ` +
        `over the time from the first deploy to the last arrival (the deploys themselves took ` +
        `${((committed - began) / 1000).toFixed(2)} s of it).`,
    };
  } finally {
    await receiver.close();
  }
}
