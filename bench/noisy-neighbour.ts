import { provision, type Api } from "./api.ts";
import { deployHotApplication, RETRIEVE, RETRIEVE_PATH } from "./hot-path.ts";
import type { Line } from "./report.ts";

export const NOISY_NEIGHBOUR =
  "8. noisy neighbour: retrieve and /api/health p99 while another project floods the code sandbox (PGlite)";

const RUNAWAY = JSON.stringify({
  data: { inputs: {}, revision: { data: { uri: "svc:custom:code:v0", script: "function run() { while (true) {} }" } } },
});
/** Connections flooding the sandbox, as in the report that found the problem; more than its queue holds. */
const FLOODERS = 20;
/** A refused flooder tries again after this pause, not at once: the flood stays a sandbox flood, not an HTTP one. */
const RETRY_PAUSE_MS = 100;
/** Sequential clients per measured request: latencies, not throughput. */
const CLIENTS = 2;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const p99 = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length * 0.99)];

interface Latencies {
  retrieve: number[];
  health: number[];
  failures: number;
}

/** `CLIENTS` sequential loops each of the neighbour's retrieve and of /api/health, for `seconds`. */
async function sample(neighbour: Api, seconds: number): Promise<Latencies> {
  const got: Latencies = { retrieve: [], health: [], failures: 0 };
  const until = performance.now() + seconds * 1000;
  const loop = async (times: number[], call: () => Promise<Response>) => {
    while (performance.now() < until) {
      const started = performance.now();
      const res = await call();
      await res.arrayBuffer();
      times.push(performance.now() - started);
      if (res.status !== 200) got.failures++;
    }
  };
  const retrieve = () => fetch(`${neighbour.url}${RETRIEVE_PATH}`, {
    method: "POST",
    headers: { authorization: `ApiKey ${neighbour.key}`, "content-type": "application/json" },
    body: RETRIEVE,
  });
  const health = () => fetch(`${neighbour.url}/api/health`);
  const loops = Array.from({ length: CLIENTS }, () => [loop(got.retrieve, retrieve), loop(got.health, health)]);
  await Promise.all(loops.flat());
  return got;
}

/** `FLOODERS` connections invoking `while (true) {}` until `stop()`; counts what they were answered. */
function flood(flooder: Api) {
  let running = true;
  const answers = new Map<number, number>();
  const one = async () => {
    while (running) {
      const res = await fetch(`${flooder.url}/services/invoke`, {
        method: "POST",
        headers: { authorization: `ApiKey ${flooder.key}`, "content-type": "application/json" },
        body: RUNAWAY,
      });
      await res.arrayBuffer();
      answers.set(res.status, (answers.get(res.status) ?? 0) + 1);
      if (res.status === 429) await sleep(RETRY_PAUSE_MS);
    }
  };
  const all = Promise.all(Array.from({ length: FLOODERS }, one));
  return {
    answers,
    async stop() {
      running = false;
      await all;
    },
  };
}

/**
 * The neighbour's retrieve p99 and /api/health p99 while one project floods the sandbox, against the
 * same measured quietly just before; the line's ratio is the worse of the two.
 */
export async function noisyNeighbourLine(url: string, seconds: number, warmupSeconds: number): Promise<Line> {
  const neighbour = await provision(url);
  const flooder = await provision(url);
  await deployHotApplication(neighbour);
  await sample(neighbour, warmupSeconds);
  const quiet = await sample(neighbour, seconds);
  const noise = flood(flooder);
  let loud: Latencies;
  try {
    await sleep(warmupSeconds * 1000); // the pool busy and the flooder's queue at its limit
    loud = await sample(neighbour, seconds);
  } finally {
    await noise.stop();
  }
  const ratios = { retrieve: p99(loud.retrieve) / p99(quiet.retrieve), health: p99(loud.health) / p99(quiet.health) };
  const ratio = Math.max(ratios.retrieve, ratios.health);
  const stopped = noise.answers.get(408) ?? 0;
  const refused = noise.answers.get(429) ?? 0;
  const other = [...noise.answers].filter(([status]) => status !== 408 && status !== 429);
  const fmt = (l: Latencies) => `retrieve ${p99(l.retrieve).toFixed(2)} ms, health ${p99(l.health).toFixed(2)} ms`;
  return {
    name: NOISY_NEIGHBOUR,
    figure: `flooded: ${fmt(loud)}`,
    baseline: `quiet: ${fmt(quiet)}`,
    ratio,
    target: "≤ 2",
    met: ratio <= 2 && loud.failures === 0 && quiet.failures === 0 && other.length === 0,
    note: [
      `p99 of ${loud.retrieve.length} retrieves and ${loud.health.length} health checks`,
      `(${CLIENTS} sequential clients each, ${seconds} s, from the bench process) while ${FLOODERS} connections of`,
      `another project invoke \`while (true) {}\` back to back (a refused one waits ${RETRY_PAUSE_MS} ms), against the`,
      `same measured just before without the flood; ratios retrieve ${ratios.retrieve.toFixed(2)},`,
      `health ${ratios.health.toFixed(2)}, the line's is the worse. The flood was answered ${stopped} × 408`,
      `(stopped at the 1 s limit) and ${refused} × 429 (queue limit)`,
    ].join(" ") + [
      other.length ? `, and unexpectedly ${other.map(([status, n]) => `${n} × ${status}`).join(", ")}` : "",
      "; the server ran with the default sandbox settings (TESSERA_SANDBOX_WORKERS = cores − 1, at least 1).",
      loud.failures + quiet.failures ? ` ${loud.failures + quiet.failures} neighbour requests failed.` : "",
    ].join(""),
  };
}
