import { createWriteStream, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { once } from "node:events";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ADMIN_KEY, provision } from "./api.ts";
import { csvFile, uploadFile } from "./csv-files.ts";
import { startChild } from "./processes.ts";

/**
 * Memory of a real server process under hostile and large uploads: peak RSS (VmHWM) during each
 * upload and RSS after it has been idle. `npx node bench/upload-memory.ts [--server-root=DIR]
 * [--postgres=URL] [--idle-seconds=N]`; prints one line per upload. Not part of `npm run bench`: the
 * files are large (400 MB, 100 MB, 1,000,000 rows) and the idle waits long.
 */
const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const idleSeconds = Number(arg("idle-seconds") ?? 20);
const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;
const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;

/** `q,a` and one row whose second cell is `cellBytes` of `x`. */
async function singleCell(cellBytes: number): Promise<string> {
  const path = join(tmpdir(), `tessera-cell-${cellBytes}.csv`);
  const out = createWriteStream(path);
  out.write("q,a\nbig,");
  const block = "x".repeat(1 << 20);
  for (let left = cellBytes; left > 0; left -= block.length) {
    if (!out.write(left >= block.length ? block : block.slice(0, left))) await once(out, "drain");
  }
  out.end("\n");
  await once(out, "finish");
  return path;
}

const dataDir = mkdtempSync(join(tmpdir(), "tessera-memory-"));
const postgres = arg("postgres");
const server = await startChild("src/main.ts", {
  TESSERA_ADMIN_KEY: ADMIN_KEY, TESSERA_DATA_DIR: dataDir, ...(postgres ? { DATABASE_URL: postgres } : {}),
}, dataDir, "server");
try {
  const api = await provision(server.url);
  console.log(`server ${server.pid} on ${postgres ? "PostgreSQL" : "PGlite"}: ${mb(rssOf(server.pid))} RSS at start`);
  const cases: [string, () => Promise<string>][] = [
    ["400 MB single-cell CSV", () => singleCell(400 * 2 ** 20)],
    ["100 MB single-cell CSV", () => singleCell(100 * 2 ** 20)],
    ["7 MB single-cell CSV (under the cell limit)", () => singleCell(7 * 2 ** 20)],
    ["1,000,000-row CSV", () => csvFile(1_000_000)],
  ];
  for (const [i, [name, make]] of cases.entries()) {
    const file = await make();
    server.resetPeak();
    const started = performance.now();
    const fields = { file_type: "csv", testset_slug: `memory-${i}` };
    const sent = await uploadFile(`${server.url}/api/simple/testsets/upload`, api.key, fields, file);
    const seconds = (performance.now() - started) / 1000;
    const peak = server.peakRss();
    const health = (await fetch(`${server.url}/api/health`)).status;
    await new Promise((r) => setTimeout(r, idleSeconds * 1000));
    const detail = sent.status === 200 ? "" : ` ${sent.head.slice(0, 160)}`;
    console.log(`${name}: ${sent.status}${detail} in ${seconds.toFixed(1)} s; peak ${mb(peak)}, ` +
      `${mb(rssOf(server.pid))} after ${idleSeconds} s idle; health ${health}`);
  }
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
