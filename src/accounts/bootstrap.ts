import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "../db/database.ts";
import { createAccount } from "./accounts.ts";
import { createApiKey } from "./api-keys.ts";

const BOOTSTRAP_LOCK = 7_353_774_202;

/**
 * On the very first start (no project at all), creates a default organization, workspace, project and
 * API key so that a newcomer can call the API at once. Returns the raw key only on that first start.
 */
export async function bootstrapFirstRun(db: Database): Promise<{ key: string; projectSlug: string } | null> {
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1)", [BOOTSTRAP_LOCK]);
    const [{ count }] = await tx.query<{ count: number }>("SELECT count(*)::int AS count FROM projects");
    if (count > 0) return null;
    const account = await createAccount(tx, {
      user: { email: "admin@localhost", username: "admin", name: "Admin", is_admin: true },
      organization: { name: "Default organization", slug: "default" },
      workspace: { name: "Default workspace", slug: "default" },
      project: { name: "Default project", slug: "default", is_default: true },
    });
    const { key } = await createApiKey(tx, account.project.id, account.user.id, "bootstrap");
    return { key, projectSlug: account.project.slug };
  });
}

/** Where the first key went: `path` (null when nothing was written), and the key file that was left alone. */
export interface SavedKey {
  path: string | null;
  kept: string[];
}

/**
 * Writes the first key where the README says it is: `<TESSERA_DATA_DIR>/api-key`, readable by the owner
 * only. A key file is never overwritten: when that one exists (another database's first key), a
 * PostgreSQL database's key goes to `api-key.<database>`, and nowhere if that exists too.
 */
export function saveBootstrapKey(dataDir: string, key: string, databaseName: string | null = null): SavedKey {
  mkdirSync(dataDir, { recursive: true });
  const candidates = [join(dataDir, "api-key")];
  if (databaseName) candidates.push(join(dataDir, `api-key.${databaseName.replace(/[^A-Za-z0-9_.-]/g, "_")}`));
  const kept: string[] = [];
  for (const path of candidates) {
    if (existsSync(path)) {
      kept.push(path);
      continue;
    }
    try {
      writeFileSync(path, key + "\n", { mode: 0o600, flag: "wx" });
    } catch (error) {
      if ((error as { code?: string }).code !== "EEXIST") throw error;
      kept.push(path);
      continue;
    }
    chmodSync(path, 0o600);
    return { path, kept };
  }
  return { path: null, kept };
}
