import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../packages/client/test/support/listening-server.ts";
import { childEnv, ROOT } from "./support/process.ts";
import { readmeBlocks, sampleToPattern, type ReadmeBlock } from "./support/readme-blocks.ts";
import { startFreshServer, type FreshServer } from "./support/fresh-server.ts";
import { startStubLlm, type StubLlm } from "./support/stub-llm.ts";

/**
 * The README's shell blocks, run in order with bash against a fresh server, as a reader would run them
 * from a checkout: each must exit 0 and print the sample output it shows (`# …` lines after a command).
 * Blocks marked `<!-- readme-test: skip (reason) -->` are not run. LLM calls go to the stand-in provider.
 */
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const blocks = readmeBlocks(README);
const PACKAGE = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { bin: Record<string, string>; scripts: Record<string, string> };
const ADMIN_KEY = "change-me";

let llm: StubLlm;
let fresh: FreshServer;
let work: string;
let serverStopped = false;

beforeAll(async () => {
  llm = await startStubLlm();
  const port = await freePort();
  fresh = await startFreshServer({
    project: "default",
    env: {
      PORT: String(port),
      TESSERA_PUBLIC_URL: `http://127.0.0.1:${port}`,
      TESSERA_ADMIN_KEY: ADMIN_KEY,
      OPENAI_API_KEY: "sk-readme",
      OPENAI_BASE_URL: llm.baseUrl,
    },
  });
  // A directory laid out like a checkout (its package.json and directories) with the key
  // the first start writes: `npx tessera`, `npm run key:create` and `cat .tessera/api-key` work as documented.
  work = mkdtempSync(join(tmpdir(), "tessera-readme-"));
  for (const entry of ["src", "bin", "scripts", "packages", "node_modules"]) symlinkSync(join(ROOT, entry), join(work, entry));
  writeFileSync(join(work, "package.json"), JSON.stringify({ name: "tessera", private: true, type: "module", bin: PACKAGE.bin, scripts: PACKAGE.scripts }));
  mkdirSync(join(work, ".tessera"));
  writeFileSync(join(work, ".tessera/api-key"), fresh.key + "\n", { mode: 0o600 });
  mkdirSync(join(work, "tmp"));
}, 180_000);

afterAll(async () => {
  await fresh?.close();
  await llm?.close();
  if (work && !process.env.KEEP_README_WORK) rmSync(work, { recursive: true, force: true });
});

/** Runs one block in bash, in the work directory, carrying exported variables over from the blocks before it. */
function runBlock(block: ReadmeBlock): Promise<{ code: number; output: string }> {
  const code = block.code.replaceAll("http://localhost:8000", fresh.url).replaceAll("/tmp/", `${work}/tmp/`);
  // `npx tessera` is the checkout's bin (package.json "bin"); calling it directly spares npm's start-up
  // (seconds per call on a busy machine), which the README's two dozen calls would multiply.
  const npx = `npx() { if [ "$1" = tessera ]; then shift; node bin/tessera.ts "$@"; else command npx "$@"; fi; }`;
  const state = `${work}/state.sh`;
  const script = `set -eo pipefail\n${npx}\n[ -f ${state} ] && source ${state}\n${code}\nexport -p > ${state}\n`;
  const env = childEnv({ ...fresh.target.env, PATH: `${join(ROOT, "node_modules/.bin")}:${process.env.PATH}` });
  // A reader's shell: none of the variables the README sets, nor those of the npm running this test.
  for (const name of Object.keys(env)) if (/^(npm_|INIT_CWD$|NODE$)/.test(name)) delete env[name];
  for (const name of ["TESSERA_URL", "TESSERA_API_KEY", "TESSERA", "KEY"]) delete env[name];
  return new Promise((resolve) => {
    execFile("bash", ["-c", script], { cwd: work, env, timeout: 300_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const exit = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      const failure = error && typeof error.code !== "number" ? `\n${error.message}` : "";
      resolve({ code: exit, output: `${stdout}\n${stderr}${failure}`.replace(/\x1b\[[0-9;]*m/g, "") });
    });
  });
}

describe("README", () => {
  it("marks every shell block it does not run with the reason", () => {
    expect(blocks.length).toBeGreaterThan(15);
    for (const block of blocks) if (block.marker?.kind === "skip") expect(block.marker.reason.length, `line ${block.line}`).toBeGreaterThan(5);
    // The sections the test exists for are run, not skipped.
    for (const text of ["npx tessera testsets upload", "/simple/testsets/upload", "npx tessera revert applications", "npx tessera key list", "$TESSERA/keys/"]) {
      expect(blocks.some((b) => b.marker?.kind !== "skip" && b.code.includes(text)), text).toBe(true);
    }
  });

  it("runs its shell blocks in order: each exits 0 and prints the output it shows", async () => {
    const ran: number[] = [];
    for (const block of blocks) {
      if (block.marker?.kind === "skip") continue;
      if (block.marker?.kind === "server-stopped" && !serverStopped) {
        // The CLI's key commands need the embedded database to themselves.
        await fresh.server.stop();
        serverStopped = true;
      }
      const { code, output } = await runBlock(block);
      const where = `README.md:${block.line}\n${block.code}\n--- output ---\n${output}`;
      expect(code, where).toBe(0);
      let rest = output;
      for (const sample of block.expected) {
        const match = sampleToPattern(sample).exec(rest);
        expect(match, `sample output "${sample}" missing, in order, from ${where}`).not.toBeNull();
        rest = rest.slice(match!.index + match![0].length);
      }
      // A request the README shows as working must not have been refused.
      if (!block.expected.some((s) => s.includes('"detail"'))) expect(output, where).not.toMatch(/"detail"\s*:/);
      expect(output, where).not.toMatch(/"code"\s*:\s*[45]\d\d/);
      ran.push(block.line);
    }
    expect(ran.length).toBeGreaterThan(15);
    // The invoke examples reached the provider stand-in, with the server's provider key.
    expect(llm.requests.length).toBeGreaterThanOrEqual(2);
    expect(llm.requests[0].headers.authorization).toBe("Bearer sk-readme");
  }, 900_000);
});
