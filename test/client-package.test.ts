import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, childEnv } from "./support/process.ts";
import { startFreshServer, type FreshServer } from "./support/fresh-server.ts";

const run = promisify(execFile);

/** The machine's own Node (not the Node 24 of node_modules/.bin): the oldest one users may have. */
const SYSTEM_NODE = ["/usr/bin/node", "/usr/local/bin/node"].find((path) => existsSync(path));

// What a user's project does with the package: import both entry points and talk to a server.
const SCRIPT = `
import { TesseraClient, TesseraError } from "@tessera/client";
import { fileSnapshot } from "@tessera/client/node";

const tessera = new TesseraClient({ baseUrl: process.env.TESSERA_URL, apiKey: process.env.TESSERA_API_KEY });
const created = await tessera.createTestset({ slug: process.env.SLUG, testcases: [{ country: "France", capital: "Paris" }] });
const csv = await new Response(await tessera.downloadTestset(created.testset.id)).text();
let refused = null;
try {
  await new TesseraClient({ baseUrl: process.env.TESSERA_URL, apiKey: "tsk_AAAAAAAAAAAA." + "B".repeat(32) }).createTestset({ testcases: [] });
} catch (error) {
  refused = error instanceof TesseraError ? [error.status, error.detail] : String(error);
}
console.log(JSON.stringify({ node: process.version, slug: created.testset.slug, csv, refused, snapshot: typeof fileSnapshot }));
`;

describe.skipIf(!SYSTEM_NODE)("@tessera/client as an installed package", () => {
  let server: FreshServer;
  let work: string;
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "tessera-client-package-"));
    server = await startFreshServer();
  });
  afterAll(async () => {
    await server?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("packs, installs into an empty project and runs under the system Node", async () => {
    const env = childEnv({ npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" });
    // npm pack builds dist/ (prepack: tsc) and packs it; the tarball holds compiled ESM and .d.ts only.
    const packed = await run("npm", ["pack", join(ROOT, "packages/client"), "--pack-destination", work, "--json"], { cwd: work, env });
    const [{ filename, files }] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    const paths = files.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(["package.json", "dist/index.js", "dist/index.d.ts", "dist/node-snapshot.js"]));
    expect(paths.filter((p) => p.endsWith(".ts") && !p.endsWith(".d.ts"))).toEqual([]);

    const project = join(work, "app");
    rmSync(project, { recursive: true, force: true });
    await run("mkdir", ["-p", project]);
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
    // The package has no dependencies: installing the tarball needs no registry.
    await run("npm", ["install", "--offline", join(work, filename)], { cwd: project, env });
    expect(readdirSync(join(project, "node_modules/@tessera/client/dist"))).toContain("index.js");
    writeFileSync(join(project, "main.js"), SCRIPT);

    const slug = `sdk-${Date.now().toString(36)}`;
    const out = await run(SYSTEM_NODE!, ["main.js"], {
      cwd: project,
      env: { PATH: process.env.PATH, TESSERA_URL: server.url, TESSERA_API_KEY: server.key, SLUG: slug },
    });
    const result = JSON.parse(out.stdout);
    const { stdout: version } = await run(SYSTEM_NODE!, ["--version"]);
    expect(result).toMatchObject({ node: version.trim(), slug, refused: [401, "Unknown API key"], snapshot: "function" });
    expect(result.csv).toMatch(/^country,capital,.*\nFrance,Paris,/); // the columns in the order the rows gave them
  }, 240_000);
});
