import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkApiKey } from "../src/accounts/api-keys.ts";
import { bootstrapFirstRun, saveBootstrapKey } from "../src/accounts/bootstrap.ts";
import { migrate } from "../src/db/migrate.ts";
import { emptyDatabase, type EmptyDatabase } from "./support/empty-database.ts";

let empty: EmptyDatabase | undefined;
let dir: string | undefined;
afterEach(async () => {
  await empty?.dispose();
  empty = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("first run", () => {
  it("creates the default organization, workspace, project and a working key, once", async () => {
    empty = await emptyDatabase();
    const db = await empty.connect();
    await migrate(db);

    const first = await bootstrapFirstRun(db);
    expect(first).toMatchObject({ projectSlug: "default", key: expect.stringMatching(/^tsk_/) });
    const [row] = await db.query<{ org: string; ws: string; project: string; is_default: boolean }>(
      `SELECT o.slug AS org, w.slug AS ws, p.slug AS project, p.is_default
         FROM projects p JOIN organizations o ON o.id = p.organization_id JOIN workspaces w ON w.id = p.workspace_id`,
    );
    expect(row).toEqual({ org: "default", ws: "default", project: "default", is_default: true });

    const owner = await checkApiKey(db, first!.key);
    expect(owner).toMatchObject({ projectId: expect.any(String) });
    // Only the hash is stored: the raw key appears in no column of api_keys.
    const stored = await db.query<{ row: string }>("SELECT row_to_json(k)::text AS row FROM api_keys k");
    expect(stored).toHaveLength(1);
    expect(stored[0].row).not.toContain(first!.key.split(".")[1]);

    expect(await bootstrapFirstRun(db)).toBeNull();
    expect(await db.query("SELECT count(*)::int AS n FROM api_keys")).toEqual([{ n: 1 }]);
  });

  it("happens once even when two processes start at once", async () => {
    empty = await emptyDatabase();
    const [a, b] = [await empty.connect(), await empty.connect()];
    await migrate(a);
    const results = await Promise.all([bootstrapFirstRun(a), bootstrapFirstRun(b)]);
    expect(results.filter((r) => r !== null)).toHaveLength(1);
    expect(await a.query("SELECT count(*)::int AS n FROM projects")).toEqual([{ n: 1 }]);
  });

  it("writes the key to <data dir>/api-key readable by the owner only", () => {
    dir = mkdtempSync(join(tmpdir(), "tessera-key-"));
    const { path } = saveBootstrapKey(join(dir, "nested", "data"), "tsk_example.key");
    expect(path).toBe(join(dir, "nested", "data", "api-key"));
    expect(readFileSync(path!, "utf8")).toBe("tsk_example.key\n");
    expect(statSync(path!).mode & 0o777).toBe(0o600);
  });

  it("never overwrites a key file: a PostgreSQL database's key goes to api-key.<database>, then nowhere", () => {
    dir = mkdtempSync(join(tmpdir(), "tessera-key-"));
    expect(saveBootstrapKey(dir, "tsk_embedded.key")).toEqual({ path: join(dir, "api-key"), kept: [] });
    expect(saveBootstrapKey(dir, "tsk_other.key")).toEqual({ path: null, kept: [join(dir, "api-key")] });

    const second = saveBootstrapKey(dir, "tsk_postgres.key", "tessera");
    expect(second).toEqual({ path: join(dir, "api-key.tessera"), kept: [join(dir, "api-key")] });
    expect(statSync(second.path!).mode & 0o777).toBe(0o600);
    expect(saveBootstrapKey(dir, "tsk_again.key", "tessera").path).toBeNull();

    expect(readFileSync(join(dir, "api-key"), "utf8")).toBe("tsk_embedded.key\n");
    expect(readFileSync(join(dir, "api-key.tessera"), "utf8")).toBe("tsk_postgres.key\n");
  });
});
