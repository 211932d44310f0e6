import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, uniqueSlug } from "../src/accounts/accounts.ts";
import { checkApiKey } from "../src/accounts/api-keys.ts";
import { migrate } from "../src/db/migrate.ts";
import { runScript } from "./support/process.ts";
import { processTarget, type ProcessTarget } from "./support/process-target.ts";

/** `npm run key:create -- …` is `node src/cli/key-create.ts …`; `tessera key create …` is the same command. */
let target: ProcessTarget;
let slug: string;
let projectId: string;

beforeAll(async () => {
  target = await processTarget();
  slug = uniqueSlug("cli");
  projectId = await target.use(async (db) => {
    await migrate(db);
    const account = await db.transaction((tx) =>
      createAccount(tx, { user: { email: `${slug}@test.local` }, project: { name: "CLI project", slug } }),
    );
    return account.project.id;
  });
});
afterAll(() => target.dispose());

const keyCreate = (args: string[]) => runScript("src/cli/key-create.ts", args, target.env);

describe("key create", () => {
  it("prints a new key once, alone on stdout, and the key works", async () => {
    const run = await keyCreate(["--project", slug, "--name", "ci"]);
    expect(run.stderr).toMatch(/Created an API key for project ".*"\. It is shown once/);
    expect(run.code).toBe(0);
    const key = run.stdout.trim();
    expect(run.stdout).toMatch(/^tsk_[A-Za-z0-9_-]{12}\.[A-Za-z0-9_-]{32,}\n$/);

    const stored = await target.use(async (db) => ({
      owner: await checkApiKey(db, key),
      names: (await db.query<{ name: string | null }>("SELECT name FROM api_keys WHERE project_id = $1", [projectId])).map((r) => r.name),
    }));
    expect(stored.owner).toMatchObject({ projectId });
    expect(stored.names).toContain("ci");
  });

  it("is also `tessera key create`", async () => {
    const run = await runScript("bin/tessera.ts", ["key", "create", "--project", slug], target.env);
    expect(run.code).toBe(0);
    const owner = await target.use((db) => checkApiKey(db, run.stdout.trim()));
    expect(owner).toMatchObject({ projectId });
  });

  it("exits 2 with a clear message for an unknown project, naming the ones that exist", async () => {
    const run = await keyCreate(["--project", "no-such-project"]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/Unknown project "no-such-project"/);
    expect(run.stderr).toContain(slug);
  });

  it.each([
    ["no --project", [], /--project <slug> is required/],
    ["an empty --project", ["--project", ""], /--project <slug> is required/],
    ["--project without a value", ["--project"], /--project/],
    ["an unknown option", ["--project", "x", "--colour", "blue"], /Unknown option '--colour'/],
    ["a stray argument", ["--project", "x", "extra"], /Unexpected argument 'extra'/],
  ])("exits 2 for %s", async (_name, args, message) => {
    const run = await keyCreate(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(/Run 'tessera key create --help' for usage/);
  });

  it("--help explains the options and exits 0", async () => {
    const run = await keyCreate(["--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Usage: tessera key create --project <slug> \[--name <name>\] \[--expires <when>\]/);
    // npm run without -s prints its banner on stdout: the usage shows the form a script can capture.
    expect(run.stdout).toContain("npm run -s key:create -- --project <slug>");
    expect(run.stdout).toContain("KEY=$(npx tessera key create");
  });
});
