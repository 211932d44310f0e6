import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { childEnv, ROOT, runScript, startServerProcess, watchProcess } from "./support/process.ts";
import { processTarget, type ProcessTarget } from "./support/process-target.ts";

const MIGRATIONS = readdirSync(new URL("../src/db/migrations/", import.meta.url)).filter((f) => f.endsWith(".sql")).length;
const tessera = (args: string[], env: Record<string, string> = {}) => runScript("bin/tessera.ts", args, env);

let target: ProcessTarget | undefined;
afterEach(async () => {
  await target?.dispose();
  target = undefined;
});

describe("tessera", () => {
  it("--help lists every command", async () => {
    const run = await tessera(["--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Usage: tessera <command> \[options\]/);
    for (const name of ["serve", "migrate", "key create", "key list", "key revoke"]) expect(run.stdout).toMatch(new RegExp(`^  ${name} +\\S`, "m"));
  });

  it("without a command prints the help on stderr and exits 2", async () => {
    const run = await tessera([]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/Commands:/);
  });

  it("rejects an unknown command with exit code 2, suggesting near ones", async () => {
    const unknown = await tessera(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "frobnicate"/);
    const partial = await tessera(["mig"]);
    expect(partial.code).toBe(2);
    expect(partial.stderr).toMatch(/did you mean: migrate\?/);
    // A group without its subcommand shows the group's usage.
    const group = await tessera(["key"]);
    expect(group.code).toBe(2);
    expect(group.stderr).toMatch(/create --project SLUG[\s\S]*list --project SLUG[\s\S]*revoke PREFIX\|ID\|KEY/);
  });

  it("serve runs the server (in a child with the server's Node flags) and stops it on SIGTERM", { timeout: 90_000 }, async () => {
    target = await processTarget();
    const server = await startServerProcess(target.env, 60_000, ["bin/tessera.ts", "serve"]);
    const health = await fetch(`${server.url}/api/health`);
    expect(await health.json()).toEqual({ status: "ok" });
    const end = await server.stop("SIGTERM");
    expect(end.code).toBe(0);
    expect(end.stdout).toContain("shutting down: finishing in-flight requests");
  });

  it("serve: the server stops when `tessera serve` itself is killed (SIGKILL, no signal to pass on)", { timeout: 150_000 }, async () => {
    target = await processTarget();
    const server = await startServerProcess(target.env, 120_000, ["bin/tessera.ts", "serve"]);
    const listening = () => server.output.stdout.split("\n").find((l) => l.includes('"msg":"Tessera is listening"'));
    await expect.poll(listening).toBeTruthy();
    const serverPid = JSON.parse(listening()!).pid as number;
    const end = await server.stop("SIGKILL");
    expect(end.signal).toBe("SIGKILL");
    const alive = () => {
      try {
        process.kill(serverPid, 0);
        return true;
      } catch {
        return false;
      }
    };
    await expect.poll(alive, { timeout: 30_000 }).toBe(false);
  });

  it("shows each command's help", async () => {
    for (const [args, usage] of [[["serve", "--help"], /Usage: tessera serve/], [["migrate", "-h"], /Usage: tessera migrate/]] as const) {
      const run = await tessera([...args]);
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(usage);
    }
  });

  it("migrate applies what is pending, prints it, then finds nothing to do", async () => {
    target = await processTarget();
    const first = await tessera(["migrate"], target.env);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`^Applied ${MIGRATIONS} migration\\(s\\) to (embedded PGlite|PostgreSQL)`));
    expect(first.stdout).toMatch(/^  001_accounts$/m);
    const second = await tessera(["migrate"], target.env);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^Database is up to date/);
    // Credentials of DATABASE_URL never appear in the output.
    expect(second.stdout).not.toMatch(/postgres:\/\//);
  });

  it.runIf(process.env.DATABASE_URL)("migrate from two processes at once applies everything exactly once (PostgreSQL)", async () => {
    target = await processTarget();
    const runs = await Promise.all([tessera(["migrate"], target.env), tessera(["migrate"], target.env)]);
    expect(runs.map((r) => r.code)).toEqual([0, 0]);
    expect(runs.filter((r) => r.stdout.startsWith("Applied"))).toHaveLength(1);
    expect(runs.filter((r) => r.stdout.startsWith("Database is up to date"))).toHaveLength(1);
  });

  it("npm scripts reach the same commands (npm run migrate, npm run key:create)", async () => {
    target = await processTarget();
    const npm = (args: string[]) =>
      watchProcess(spawn("npm", ["run", "--silent", ...args], { cwd: ROOT, env: childEnv(target!.env), stdio: ["ignore", "pipe", "pipe"] }), 120_000).done;
    const migrate = await npm(["migrate"]);
    expect(migrate.code).toBe(0);
    expect(migrate.stdout).toMatch(/^Applied \d+ migration/);
    const help = await npm(["key:create", "--", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: tessera key create/);
  });
});
