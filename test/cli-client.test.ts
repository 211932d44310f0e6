import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, describe, expect, it } from "vitest";
import { completion, freePort, startListeningServer } from "../packages/client/test/support/listening-server.ts";
import { Progress } from "../src/cli/progress.ts";
import { childEnv, ROOT, watchProcess } from "./support/process.ts";

/**
 * The client commands of `tessera` (testsets upload/download, apps deploy, log, diff, revert), run as
 * a child process against a real server listening on a real port, with a project key of its own.
 */
const s = await startListeningServer();
const home = mkdtempSync(join(tmpdir(), "tessera-cli-client-"));
afterAll(async () => {
  await s.close();
  rmSync(home, { recursive: true, force: true });
});

/** `tessera …` with TESSERA_URL / TESSERA_API_KEY set to the test server (override with undefined to unset). */
function tessera(args: string[], options: { env?: Record<string, string | undefined>; cwd?: string } = {}) {
  const env = childEnv({});
  for (const name of ["TESSERA_URL", "TESSERA_API_KEY", "TESSERA_DATA_DIR", "XDG_CONFIG_HOME"]) delete env[name];
  Object.assign(env, { HOME: home, TESSERA_URL: s.baseUrl, TESSERA_API_KEY: s.project.key });
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  const child = spawn(process.execPath, [join(ROOT, "bin/tessera.ts"), ...args], { cwd: options.cwd ?? ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  return watchProcess(child, 60_000).done;
}

const file = (name: string, text: string) => {
  const path = join(home, name);
  writeFileSync(path, text);
  return path;
};

/** Rows as uploaded: the download adds each testcase's id and dedup key, which the comparison drops. */
const dataOf = (rows: Record<string, unknown>[]) => rows.map(({ __id__, testcase_dedup_id, ...data }) => data);

const ROWS = [
  { country: "France", capital: "Paris", note: "has a comma, and \"quotes\"" },
  { country: "Japan", capital: "Tokyo", note: "two\nlines" },
  { country: "Peru", capital: "Lima", note: "" },
];
const csvOf = (rows: Record<string, string>[]) =>
  ["country,capital,note", ...rows.map((r) => [r.country, r.capital, r.note].map((v) => `"${v.replace(/"/g, '""')}"`).join(","))].join("\n") + "\n";

describe("tessera testsets", () => {
  it("uploads a CSV, and downloads the same rows as CSV and as JSON", async () => {
    const up = await tessera(["testsets", "upload", file("capitals.csv", csvOf(ROWS)), "--json"]);
    expect(up.stderr).toBe("");
    expect(up.code).toBe(0);
    const created = JSON.parse(up.stdout);
    expect(created).toMatchObject({ action: "created", testset: { slug: "capitals" }, revision: { version: 1 }, rows: 3 });

    const csv = await tessera(["testsets", "download", "capitals"]);
    expect(csv.code).toBe(0);
    expect(csv.stderr).toBe("");
    expect(dataOf(parse(csv.stdout, { columns: true }))).toEqual(ROWS);

    const out = join(home, "capitals.json");
    const json = await tessera(["testsets", "download", created.testset.id, "--format", "json", "-o", out]);
    expect(json.code).toBe(0);
    expect(json.stdout).toMatch(/^Wrote testset "capitals" version 1 as JSON to .*capitals\.json/);
    expect(dataOf(JSON.parse(readFileSync(out, "utf8")))).toEqual(ROWS);
  });

  it("uploads a new revision onto the same testset, and downloads either revision", async () => {
    const more = [...ROWS, { country: "Spain", capital: "Madrid", note: "new" }];
    const up = await tessera(["testsets", "upload", file("v2.csv", csvOf(more)), "--testset", "capitals"]);
    expect(up.code).toBe(0);
    expect(up.stdout).toMatch(/^Committed version 2 of testset "capitals": 4 rows from v2\.csv/);

    const latest = await tessera(["testsets", "download", "capitals"]);
    expect(dataOf(parse(latest.stdout, { columns: true }))).toEqual(more);
    const first = await tessera(["testsets", "download", "capitals", "--revision", "v1", "--format", "json"]);
    expect(dataOf(JSON.parse(first.stdout))).toEqual(ROWS);

    const log = await tessera(["log", "testsets", "capitals", "--json"]);
    // Version 0 is the empty revision the testset was created with, as in the reference.
    expect(JSON.parse(log.stdout).revisions.map((r: { version: number }) => r.version)).toEqual([2, 1, 0]);

    const diff = await tessera(["diff", "testsets", "--base", "capitals@1", "--target", "capitals@2"]);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toMatch(/rows: 3 → 4 \(1 added, 0 removed, 0 changed\)/);
    expect(diff.stdout).toMatch(/^ {2}\+ .*"Madrid"/m);
  });

  it("reads JSON Lines by extension and JSON by --format, and says where the download went with --json", async () => {
    const lines = ROWS.map((r) => JSON.stringify(r)).join("\n") + "\n";
    const up = await tessera(["testsets", "upload", file("lines.jsonl", lines), "--json"]);
    expect(up.code).toBe(0);
    expect(JSON.parse(up.stdout)).toMatchObject({ testset: { slug: "lines" }, rows: 3 });
    const again = await tessera(["testsets", "upload", file("rows.txt", JSON.stringify(ROWS)), "--format", "json", "--testset", "lines", "--json"]);
    expect(JSON.parse(again.stdout)).toMatchObject({ action: "committed", revision: { version: 2 }, rows: 3 });

    const out = join(home, "lines.csv");
    const down = await tessera(["testsets", "download", "lines", "-o", out, "--json"]);
    expect(down.code).toBe(0);
    const summary = JSON.parse(down.stdout);
    expect(summary).toMatchObject({ file: out, format: "csv", testset: { slug: "lines" }, revision: { version: 2 } });
    expect(summary.bytes).toBe(readFileSync(out).length);
  });

  it("escapes formula-looking cells for spreadsheets with --escape-formulas, and only then", async () => {
    const rows = "formula,plain\n\"=HYPERLINK(\"\"http://evil\"\")\",ok\n@SUM(A1),-1\n";
    expect((await tessera(["testsets", "upload", file("formulas.csv", rows)])).code).toBe(0);
    const verbatim = await tessera(["testsets", "download", "formulas"]);
    const cells = (csv: string) => (parse(csv, { columns: true }) as Record<string, string>[]).map((r) => [r.formula, r.plain]);
    expect(cells(verbatim.stdout)).toEqual([
      ['=HYPERLINK("http://evil")', "ok"], ["@SUM(A1)", "-1"],
    ]);
    const escaped = await tessera(["testsets", "download", "formulas", "--escape-formulas"]);
    expect(escaped.code).toBe(0);
    expect(cells(escaped.stdout)).toEqual([
      ['\'=HYPERLINK("http://evil")', "ok"], ["'@SUM(A1)", "'-1"],
    ]);
  });
});

describe("tessera apps deploy, log, diff, revert", () => {
  let app: { id: string; variant_id: string; revision_id: string };

  it("deploys an application created through the API", async () => {
    app = (await s.project.ok("POST", "/simple/applications/", { application: { slug: "geo", data: completion("Capital of {{country}}?") } })).application;
    const run = await tessera(["apps", "deploy", "geo", "--variant", "default", "--env", "production"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Deployed geo \(variant geo\.default, version 1\) to production/);
    const deployed = await s.project.ok("POST", "/applications/revisions/retrieve", { application_ref: { slug: "geo" }, environment_ref: { slug: "production" } });
    expect(deployed.application_revision.id).toBe(app.revision_id);

    const json = await tessera(["apps", "deploy", app.id, "--variant", "geo.default", "--env", "staging", "--json"]);
    expect(JSON.parse(json.stdout).application_revision.id).toBe(app.revision_id);
  });

  it("logs versions newest first, diffs them and reverts to an older one", async () => {
    await s.project.ok("POST", "/applications/revisions/commit", {
      application_revision_commit: { application_variant_id: app.variant_id, message: "Ask for the largest city", data: completion("Largest city of {{country}}?") },
    });
    const log = await tessera(["log", "applications", "geo"]);
    expect(log.code).toBe(0);
    const lines = log.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^VERSION +DATE +AUTHOR +REVISION +MESSAGE$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[0])).toEqual(["v2", "v1", "v0"]);
    expect(lines[1]).toMatch(/Ask for the largest city$/);
    expect(lines[1]).toContain(s.project.userId);

    const diff = await tessera(["diff", "applications", "--base", "geo@1", "--target", "geo@2"]);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toMatch(/^ {2}message: null → "Ask for the largest city"$/m);
    expect(diff.stdout).toMatch(/^ {2}~ \/parameters\/prompt\/messages\/1\/content: "Largest city of \{\{country\}\}\?"$/m);
    const diffJson = JSON.parse((await tessera(["diff", "app", "--base", app.revision_id, "--target", "geo.default@2", "--json"])).stdout);
    expect(diffJson.data).toContainEqual({ op: "replace", path: "/parameters/prompt/messages/1/content", value: "Largest city of {{country}}?" });

    const revert = await tessera(["revert", "applications", "geo@1", "--message", "Back to capitals", "--json"]);
    expect(revert.code).toBe(0);
    expect(JSON.parse(revert.stdout).revision).toMatchObject({ version: 3, message: "Back to capitals", variant_slug: "geo.default" });
    const after = JSON.parse((await tessera(["log", "applications", "geo", "--depth", "2", "--json"])).stdout);
    expect(after.revisions.map((r: { version: number; message: string }) => [r.version, r.message])).toEqual([[3, "Back to capitals"], [2, "Ask for the largest city"]]);
    const same = await tessera(["diff", "applications", "--base", "geo@1", "--target", "geo@3"]);
    expect(same.stdout).toMatch(/^data: unchanged$/m);

    const env = JSON.parse((await tessera(["log", "environments", "production", "--json"])).stdout);
    expect(env.revisions[0].message).toMatch(/geo/);
  });
});

describe("exit codes", () => {
  it.each([
    ["no KIND", ["log"], /KIND and SLUG are required/],
    ["an unknown KIND", ["log", "prompts", "x"], /Unknown KIND "prompts"/],
    ["an unknown option", ["log", "applications", "geo", "--colour", "blue"], /Unknown option '--colour'/],
    ["a stray argument", ["revert", "applications", "geo@1", "extra"], /Unexpected argument 'extra'/],
    ["a malformed revision", ["diff", "applications", "--base", "geo", "--target", "geo@2"], /--base must be a revision id or SLUG@VERSION/],
    ["a missing --env", ["apps", "deploy", "geo", "--variant", "default"], /--env ENV is required/],
    ["a file that does not exist", ["testsets", "upload", "/nonexistent/rows.csv"], /Cannot read "\/nonexistent\/rows\.csv": no such file/],
    ["a file of unknown format", ["testsets", "upload", join(ROOT, "package.json.txt")], /Cannot (tell the format|read)/],
    ["--json without -o", ["testsets", "download", "capitals", "--json"], /--json needs -o FILE/],
    ["a bad --url", ["log", "applications", "geo", "--url", "ftp://x"], /--url must be an http/],
    ["a missing --config file", ["log", "applications", "geo", "--config", "/nonexistent.json"], /Config file \/nonexistent\.json does not exist/],
    ["a group without subcommand", ["testsets"], /Usage: tessera testsets <subcommand>/],
    ["an unknown subcommand", ["apps", "undeploy"], /Unknown subcommand "undeploy"/],
  ])("2 for %s", async (_name, args, message) => {
    const run = await tessera(args);
    expect(run.stderr).toMatch(message);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
  });

  it("1 for what does not exist, with the detail", async () => {
    const log = await tessera(["log", "applications", "no-such-app"]);
    expect(log.code).toBe(1);
    expect(log.stderr).toMatch(/No application or application variant has slug or id "no-such-app"/);
    const diff = await tessera(["diff", "applications", "--base", "no-such-app@1", "--target", "geo@1"]);
    expect(diff.code).toBe(1);
    expect(diff.stderr).toMatch(/the server answered 404: No application revision, variant or application has slug "no-such-app"/);
    const env = await tessera(["apps", "deploy", "geo", "--variant", "default", "--env", "no-such-env"]);
    expect(env.code).toBe(1);
    expect(env.stderr).toMatch(/404: environment no-such-env not found/);
    const down = await tessera(["testsets", "download", "capitals", "--revision", "9"]);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/Testset "capitals" has no version 9 \(its latest is 2\)/);
    const bad = await tessera(["testsets", "upload", file("broken.csv", 'a,b\n"x,1\n'), "--testset", "broken"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/the server answered 422:\n {2}body\.file: Malformed CSV at line 2/);
  });

  it("3 when the server cannot be reached or refuses the key", async () => {
    const down = await tessera(["log", "applications", "geo"], { env: { TESSERA_URL: `http://127.0.0.1:${await freePort()}` } });
    expect(down.code).toBe(3);
    expect(down.stderr).toMatch(/cannot reach the server at http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/);
    const key = await tessera(["testsets", "download", "capitals"], { env: { TESSERA_API_KEY: "tsk_AAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB" } });
    expect(key.code).toBe(3);
    expect(key.stderr).toMatch(/the server refused the API key \(401\)/);
    expect(key.stdout).toBe("");
    const none = await tessera(["log", "applications", "geo"], { env: { TESSERA_API_KEY: undefined }, cwd: home });
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/No API key for http:\/\/127\.0\.0\.1:\d+: set TESSERA_API_KEY/);
  });
});

describe("configuration", () => {
  it("takes flags over the environment, the environment over the config file", async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const config = file("config.json", JSON.stringify({ url: s.baseUrl, api_key: s.project.key }));
    const fromFile = await tessera(["log", "applications", "geo", "--config", config, "--json"], { env: { TESSERA_URL: undefined, TESSERA_API_KEY: undefined } });
    expect(fromFile.code).toBe(0);
    const envWins = await tessera(["log", "applications", "geo", "--config", config], { env: { TESSERA_URL: dead } });
    expect(envWins.code).toBe(3);
    const flagWins = await tessera(["log", "applications", "geo", "--url", s.baseUrl], { env: { TESSERA_URL: dead } });
    expect(flagWins.code).toBe(0);
    const apiRoot = await tessera(["log", "applications", "geo", "--url", `${s.baseUrl}/api/`]);
    expect(apiRoot.code).toBe(0);
  });

  it("reads ~/.config/tessera/config.json, and falls back to ./.tessera/api-key for a local server", async () => {
    mkdirSync(join(home, ".config", "tessera"), { recursive: true });
    writeFileSync(join(home, ".config", "tessera", "config.json"), JSON.stringify({ url: s.baseUrl, api_key: s.project.key }));
    try {
      const run = await tessera(["log", "applications", "geo"], { env: { TESSERA_URL: undefined, TESSERA_API_KEY: undefined } });
      expect(run.code).toBe(0);
    } finally {
      rmSync(join(home, ".config"), { recursive: true });
    }
    const dir = mkdtempSync(join(home, "local-"));
    mkdirSync(join(dir, ".tessera"));
    writeFileSync(join(dir, ".tessera", "api-key"), s.project.key + "\n");
    const local = await tessera(["log", "applications", "geo"], { env: { TESSERA_API_KEY: undefined }, cwd: dir });
    expect(local.code).toBe(0);
    // Not for a server elsewhere: a key is never sent to a host it was not made for.
    const remote = await tessera(["log", "applications", "geo"], { env: { TESSERA_API_KEY: undefined, TESSERA_URL: "http://tessera.invalid:8000" }, cwd: dir });
    expect(remote.code).toBe(3);
    expect(remote.stderr).toMatch(/No API key/);
  });
});

describe("--help", () => {
  const commands = ["testsets", "testsets upload", "testsets download", "apps", "apps deploy", "log", "diff", "revert"];

  it.each(commands)("tessera %s --help", async (name) => {
    const run = await tessera([...name.split(" "), "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Usage: tessera ${name} `, "m"));
    expect(run.stdout).toMatch(/Exit codes: 0 done; 1 the server refused .* 2 usage error; 3 the server cannot be reached/s);
  });

  it("tessera --help lists the client commands", async () => {
    const run = await tessera(["--help"]);
    for (const name of commands) expect(run.stdout).toMatch(new RegExp(`^  ${name} +\\S`, "m"));
  });
});

describe("progress", () => {
  const sink = (isTTY: boolean) => {
    const writes: string[] = [];
    return { writes, stream: { isTTY, columns: 100, write: (t: string) => writes.push(t) } };
  };

  it("redraws a bar with bytes, percentage and rate on a terminal", () => {
    let now = 0;
    const { writes, stream } = sink(true);
    const progress = new Progress("Uploading rows.csv", 4_000_000, { stream, now: () => now });
    now = 1000;
    progress.add(2_000_000);
    now = 2000;
    progress.add(2_000_000);
    progress.done();
    expect(writes[0]).toMatch(/^\rUploading rows\.csv {2}\[#+-+\] {2}50% {2}2\.0 MB \/ 4\.0 MB {2}2\.0 MB\/s\x1b\[K$/);
    expect(writes.at(-2)).toMatch(/100% {2}4\.0 MB \/ 4\.0 MB/);
    expect(writes.at(-1)).toBe("\n");
  });

  it("prints a plain line now and then when stderr is not a terminal, and nothing for a short transfer", () => {
    let now = 0;
    const { writes, stream } = sink(false);
    const progress = new Progress("Downloading x v1", null, { stream, now: () => now });
    progress.add(500);
    progress.done();
    expect(writes).toEqual([]);
    now = 6000;
    progress.add(5500);
    expect(writes).toEqual(["Downloading x v1: 6.0 kB  1.0 kB/s\n"]);
  });
});
