import { provision, type Api } from "./api.ts";
import { csvFile, uploadFile } from "./csv-files.ts";
import type { Line } from "./report.ts";

/** The line's name on one database. */
export const uploadNeighbourName = (label: string) =>
  `10. upload neighbour: another project's read p99 while one uploads 3 × 150,000 rows (${label})`;

const ROWS = 150_000;
const UPLOADS = 3;
/** Sequential clients reading the neighbour's testset: latencies, not throughput. */
const CLIENTS = 2;

const p99 = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length * 0.99)];

interface Reads {
  times: number[];
  failures: number;
}

/** `CLIENTS` sequential loops reading the neighbour's testset until `done` settles. */
async function sample(neighbour: Api, testsetId: string, done: Promise<unknown>): Promise<Reads> {
  const got: Reads = { times: [], failures: 0 };
  let running = true;
  done.finally(() => (running = false)).catch(() => {});
  const loop = async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(`${neighbour.url}/api/simple/testsets/${testsetId}`, {
        headers: { authorization: `ApiKey ${neighbour.key}` },
      });
      await res.arrayBuffer();
      got.times.push(performance.now() - started);
      if (res.status !== 200) got.failures++;
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, loop));
  return got;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Another project's testset read (p99 and slowest) while one project runs three concurrent 150,000-row CSV uploads,
 * against the same read measured quietly for `seconds` just before. Targets: on PostgreSQL the p99 at most twice
 * the quiet one; on the embedded database (one backend for every project) no read over 1 s.
 */
export async function uploadNeighbourLine(url: string, label: "PGlite" | "PostgreSQL", seconds: number): Promise<Line> {
  const neighbour = await provision(url);
  const uploader = await provision(url);
  const testcases = Array.from({ length: 100 }, (_, i) => ({ data: { question: `q${i}`, answer: `a${i}` } }));
  const body = { testset: { slug: "neighbour", data: { testcases } } };
  const { testset } = await neighbour.post("/simple/testsets/", body);
  const file = await csvFile(ROWS);
  await sample(neighbour, testset.id, sleep(1000));
  const quiet = await sample(neighbour, testset.id, sleep(seconds * 1000));
  const began = performance.now();
  const uploads = Promise.all(Array.from({ length: UPLOADS }, (_, n) =>
    uploadFile(`${url}/api/simple/testsets/upload`, uploader.key, { testset_slug: `upload-${n}` }, file)));
  const loud = await sample(neighbour, testset.id, uploads);
  const sent = await uploads;
  const took = (performance.now() - began) / 1000;
  const refused = sent.filter((s) => s.status !== 200);
  if (refused.length) {
    throw new Error(`uploads answered ${refused.map((s) => `${s.status} ${s.head.slice(0, 200)}`).join("; ")}`);
  }
  const slowest = Math.max(...loud.times);
  const ratio = p99(loud.times) / p99(quiet.times);
  const failures = loud.failures + quiet.failures;
  const met = failures === 0 && (label === "PGlite" ? slowest <= 1000 : ratio <= 2);
  return {
    name: uploadNeighbourName(label),
    figure: `uploading: p99 ${p99(loud.times).toFixed(1)} ms, slowest ${slowest.toFixed(0)} ms`,
    baseline: `quiet: p99 ${p99(quiet.times).toFixed(1)} ms, slowest ${Math.max(...quiet.times).toFixed(0)} ms`,
    ratio,
    target: label === "PGlite" ? "no read > 1 s" : "≤ 2",
    met,
    note: [
      `GET /api/simple/testsets/{id} of a 100-row testset, ${CLIENTS} sequential clients from the bench process:`,
      `${loud.times.length} reads while another project ran ${UPLOADS} concurrent uploads`,
      `of a ${ROWS.toLocaleString("en-US")}-row`,
      `CSV (about 100 bytes a row; all three answered in ${took.toFixed(1)} s), against ${quiet.times.length} reads`,
      `in ${seconds} s just before.`,
      failures ? `${failures} reads failed.` : "",
    ].join(" ").trim(),
  };
}
