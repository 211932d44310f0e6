/**
 * PostgreSQL restarted under two running Tessera processes (`npx node bench/database-restart.ts`).
 * Not part of `npm run bench`: it needs PostgreSQL's binaries and root (the cluster runs as `postgres`).
 *
 * A private PostgreSQL cluster (initdb in a temporary directory, on a free port: never a shared one),
 * two processes A and B on it, and steady retrieve traffic on both (a few clients each). Then
 * `pg_ctl stop -m fast`, a pause, `pg_ctl start`; as soon as PostgreSQL accepts connections, a new
 * deployment is made through A (retried until it is acknowledged). It reports the requests that
 * failed while PostgreSQL was away, the seconds from PostgreSQL ready to each process's first success,
 * and how long B kept serving the old revision after A acknowledged the new one (the stale window).
 *
 * Options: --outage-ms=N (default 3000), --clients=N per process (default 4), --rounds=N (default 3),
 * --write to put the table into BENCHMARKS.md (its own section, which `npm run bench` keeps).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { freePort, ROOT, startChild, type Child } from "./processes.ts";

const option = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const OUTAGE_MS = option("outage-ms", 3000);
const CLIENTS = option("clients", 4);
const ROUNDS = option("rounds", 3);
const ADMIN = "restart-bench-admin";
const RETRIEVE = JSON.stringify({ application_ref: { slug: "restart" }, environment_ref: { slug: "production" } });

function postgresBin(): string {
  const versions = execFileSync("ls", ["/usr/lib/postgresql"], { encoding: "utf8" }).trim().split("\n").sort((a, b) => Number(b) - Number(a));
  return `/usr/lib/postgresql/${versions[0]}/bin`;
}

/** A PostgreSQL cluster of its own, run as the `postgres` user, listening on 127.0.0.1:port only. */
async function privateCluster() {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), "tessera-pg-"));
  const data = join(dir, "data");
  execFileSync("chown", ["postgres:postgres", dir]);
  const port = await freePort();
  const asPostgres = (args: string[]) => execFileSync("runuser", ["-u", "postgres", "--", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  asPostgres([`${bin}/initdb`, "-D", data, "-A", "trust", "-U", "postgres", "--no-sync"]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const pgCtl = (args: string[]) => asPostgres([`${bin}/pg_ctl`, "-D", data, "-o", options, "-l", join(dir, "postgres.log"), ...args]);
  pgCtl(["-w", "start"]);
  const url = `postgres://postgres@127.0.0.1:${port}`;
  const admin = new pg.Client({ connectionString: `${url}/postgres` });
  await admin.connect();
  await admin.query("CREATE DATABASE tessera");
  await admin.end();
  return {
    url: `${url}/tessera`,
    stop: () => pgCtl(["-m", "fast", "-w", "stop"]),
    start: () => pgCtl(["start"]),
    /** Polls until PostgreSQL answers a query; resolves with the moment it did. */
    async ready(): Promise<number> {
      for (;;) {
        const c = new pg.Client({ connectionString: `${url}/tessera`, connectionTimeoutMillis: 500 });
        c.on("error", () => {});
        try {
          await c.connect();
          await c.query("SELECT 1");
          const at = performance.now();
          await c.end();
          return at;
        } catch {
          await c.end().catch(() => {});
          await sleep(10);
        }
      }
    },
    dispose() {
      try {
        pgCtl(["-m", "immediate", "-w", "stop"]);
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface Answer {
  at: number;
  status: number;
  revision?: string;
}

/** `clients` loops retrieving the deployment from `server` until `stop`, every answer recorded. */
function steadyLoad(server: Child, key: string, clients: number, answers: Answer[], running: { on: boolean }) {
  const loop = async () => {
    while (running.on) {
      try {
        const res = await fetch(`${server.url}/api/applications/revisions/retrieve`, {
          method: "POST",
          headers: { authorization: `ApiKey ${key}`, "content-type": "application/json" },
          body: RETRIEVE,
          signal: AbortSignal.timeout(15_000),
        });
        const body = (await res.json()) as { application_revision?: { id: string } };
        answers.push({ at: performance.now(), status: res.status, revision: body.application_revision?.id });
      } catch {
        answers.push({ at: performance.now(), status: 0 });
      }
      await sleep(10);
    }
  };
  return Promise.all(Array.from({ length: clients }, loop));
}

async function post(server: Child, path: string, body: unknown, authorization: string) {
  const res = await fetch(`${server.url}/api${path}`, {
    method: "POST",
    headers: { authorization, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as any };
}

const out: string[] = [];
const print = (line: string) => {
  console.log(line);
  out.push(line);
};

/** Replaces (or appends) this script's section of BENCHMARKS.md. */
function writeSection(lines: string[]) {
  const path = join(ROOT, "BENCHMARKS.md");
  const section = [
    "<!-- database-restart -->",
    "## PostgreSQL restart under load (bench/database-restart.ts)",
    "",
    "Written by `npx node bench/database-restart.ts --write` (not part of `npm run bench`). A private PostgreSQL",
    "cluster (initdb in a temporary directory, fsync off), two Tessera processes on it, each under steady",
    "retrieve traffic; then `pg_ctl stop -m fast`, the outage, `pg_ctl start`. *Failed* counts the requests",
    "answered other than 200 from the stop on (every one a quick 503 with Retry-After, none hung);",
    "*ready → first 200* runs from PostgreSQL's first answered query (target < 2 s). As soon as A can, a new",
    "revision is committed and deployed through A; *B serves A's deploy after* is from A's acknowledgement",
    "to B's first answer with it, and *B stale* the last time B answered the old revision after it.",
    `Date: ${new Date().toISOString()}.`,
    "",
    ...lines,
    "<!-- /database-restart -->",
    "",
  ].join("\n");
  const text = existsSync(path) ? readFileSync(path, "utf8") : "";
  const block = /<!-- database-restart -->[\s\S]*?<!-- \/database-restart -->\n?/;
  writeFileSync(path, block.test(text) ? text.replace(block, section) : `${text.trimEnd()}\n\n${section}`);
}

async function main() {
  const cluster = await privateCluster();
  const logDir = mkdtempSync(join(tmpdir(), "tessera-restart-bench-"));
  const children: Child[] = [];
  try {
    const env = { DATABASE_URL: cluster.url, TESSERA_ADMIN_KEY: ADMIN, TESSERA_DATA_DIR: logDir, LOG_LEVEL: "info" };
    const a = await startChild("src/main.ts", env, logDir, "a");
    children.push(a);
    const b = await startChild("src/main.ts", env, logDir, "b");
    children.push(b);
    const account = await post(a, "/admin/simple/accounts/", {
      accounts: { r: { user: { email: "restart@bench.local" }, options: { create_api_keys: true, return_api_keys: true } } },
    }, `Access ${ADMIN}`);
    const key = account.json.accounts.r.api_keys.key as string;
    const auth = `ApiKey ${key}`;
    const app = (await post(a, "/simple/applications/", { application: { slug: "restart", data: { parameters: { prompt: "v0" } } } }, auth)).json.application;
    const deploy = () => post(a, "/applications/revisions/deploy", { application_variant_ref: { id: app.variant_id }, environment_ref: { slug: "production" } }, auth);
    await deploy();

    print(`PostgreSQL restart under load: 2 processes, ${CLIENTS} clients each, outage ${OUTAGE_MS} ms, ${ROUNDS} rounds\n`);
    print("| round | outage | failed A | failed B | of which 503 | ready → first 200 on A | ready → first 200 on B | B serves A's deploy after | B stale after A's deploy |");
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (let round = 1; round <= ROUNDS; round++) {
      const answersA: Answer[] = [];
      const answersB: Answer[] = [];
      const running = { on: true };
      const load = Promise.all([steadyLoad(a, key, CLIENTS, answersA, running), steadyLoad(b, key, CLIENTS, answersB, running)]);
      await sleep(1000);
      const stoppedAt = performance.now();
      cluster.stop();
      await sleep(OUTAGE_MS);
      cluster.start();
      const readyAt = await cluster.ready();

      // A new revision, deployed through A as soon as A can: B must stop serving the old one at once.
      const commit = await (async () => {
        for (;;) {
          const res = await post(a, "/applications/revisions/commit", {
            application_revision_commit: { application_variant_id: app.variant_id, message: `round ${round}`, data: { parameters: { prompt: `v${round}` } } },
          }, auth).catch(() => ({ status: 0, json: {} as any }));
          if (res.status === 200) return res.json.application_revision as { id: string };
          await sleep(10);
        }
      })();
      for (;;) {
        const res = await deploy().catch(() => ({ status: 0 }));
        if (res.status === 200) break;
        await sleep(10);
      }
      const deployedAt = performance.now();
      await sleep(3000);
      running.on = false;
      await load;

      const failed = (answers: Answer[]) => answers.filter((x) => x.at >= stoppedAt && x.status !== 200);
      const firstOk = (answers: Answer[]) => answers.find((x) => x.at >= readyAt && x.status === 200)?.at;
      const staleB = answersB.filter((x) => x.at > deployedAt && x.status === 200 && x.revision !== commit.id).at(-1);
      const seenB = answersB.find((x) => x.at > deployedAt && x.status === 200 && x.revision === commit.id);
      const [fa, fb] = [failed(answersA), failed(answersB)];
      const unavailable = [...fa, ...fb].filter((x) => x.status === 503).length;
      const seconds = (ms: number | undefined) => (ms === undefined ? "never" : `${(ms / 1000).toFixed(2)} s`);
      const since = (at: number | undefined, from: number) => (at === undefined ? undefined : at - from);
      print(`| ${[
        round, seconds(readyAt - stoppedAt), fa.length, fb.length, unavailable,
        seconds(since(firstOk(answersA), readyAt)), seconds(since(firstOk(answersB), readyAt)),
        seconds(since(seenB?.at, deployedAt)), staleB ? seconds(staleB.at - deployedAt) : "0 (none)",
      ].join(" | ")} |`);
    }
    const alive = children.every((c) => {
      try {
        process.kill(c.pid, 0);
        return true;
      } catch {
        return false;
      }
    });
    print(`\nBoth processes still running afterwards (same pids, no restart): ${alive ? "yes" : "NO"}.`);
    if (process.argv.includes("--write")) writeSection(out);
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    cluster.dispose();
    rmSync(logDir, { recursive: true, force: true });
  }
}

await main();
