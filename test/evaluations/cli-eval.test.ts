import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startListeningServer } from "../../packages/client/test/support/listening-server.ts";
import { childEnv, ROOT, watchProcess } from "../support/process.ts";

/** `tessera eval …` as a CI pipeline runs it: a child process against a real server on a real port. */
const s = await startListeningServer();
const home = mkdtempSync(join(tmpdir(), "tessera-cli-eval-"));
afterAll(async () => {
  await s.close();
  rmSync(home, { recursive: true, force: true });
});

function tessera(args: string[]) {
  const env = childEnv({});
  for (const name of ["TESSERA_URL", "TESSERA_API_KEY", "TESSERA_DATA_DIR", "XDG_CONFIG_HOME"]) delete env[name];
  Object.assign(env, { HOME: home, TESSERA_URL: s.baseUrl, TESSERA_API_KEY: s.project.key });
  const child = spawn(process.execPath, [join(ROOT, "bin/tessera.ts"), ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  return watchProcess(child, 120_000).done;
}

describe("tessera eval", () => {
  it("runs an evaluation with progress and a metrics table, gates on --fail-under, shows and compares runs", async () => {
    const p = s.project;
    await p.ok("POST", "/simple/testsets/", {
      testset: {
        slug: "capitals",
        data: { testcases: [["France", "Paris"], ["Japan", "Tokyo"], ["Peru", "Lima"], ["Chile", "Santiago"]].map(([country, capital]) => ({ data: { country, capital } })) },
      },
    });
    await p.ok("POST", "/simple/applications/", {
      application: {
        slug: "geo",
        data: { uri: "svc:custom:code:v0", script: "function run(i) { return ({France: 'Paris', Japan: 'Tokyo', Peru: 'Lima'})[i.country] ?? 'unknown'; }" },
      },
    });

    const first = await tessera([
      "eval", "run", "--app", "geo", "--testset", "capitals", "--evaluator", "auto_exact_match", "--correct-answer-key", "capital",
      "--fail-under", "success=0.5",
    ]);
    expect(first.stderr).toMatch(/4\/4 done, 0 failed, 0 reused/);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/auto_exact_match\s+success\s+0\.7500\s+4/);
    const runId = /Run ([0-9a-f-]{36}): success/.exec(first.stdout)![1];

    // The same revisions again: every result is reused, and a stricter gate fails the pipeline.
    const second = await tessera([
      "eval", "run", "--app", "geo", "--testset", "capitals", "--evaluator", "auto_exact_match", "--fail-under", "auto_exact_match.success=0.9", "--json",
    ]);
    expect(second.code).toBe(4);
    const report = JSON.parse(second.stdout);
    expect(report.progress).toMatchObject({ status: "success", scenarios: 4, cells: { invoked: 0, reused: 8 } });
    expect(report.failed_thresholds).toEqual(["auto_exact_match.success = 0.7500 < 0.9"]);
    expect(second.stderr).toContain("FAIL auto_exact_match.success = 0.7500 < 0.9");

    const missing = await tessera(["eval", "run", "--testset", "capitals", "--evaluator", "no_such_evaluator"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('No evaluator "no_such_evaluator"');

    const shown = await tessera(["eval", "show", runId]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/input\s+capitals v/);
    expect(shown.stdout).toMatch(/invocation\s+geo v/);
    expect(shown.stdout).toMatch(/success\s+0\.7500/);

    const compared = await tessera(["eval", "compare", runId, report.run.id]);
    expect(compared.code).toBe(0);
    expect(compared.stdout).toMatch(/auto_exact_match\s+success\s+0\.7500\s+0\.7500\s+0/);
    expect(compared.stdout).toContain("4 testcases in every run, 0 not; 0 changed.");
  });
});
