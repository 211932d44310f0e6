import { createAccount, uniqueSlug } from "../../src/accounts/accounts.ts";
import { createApiKey } from "../../src/accounts/api-keys.ts";
import { migrate } from "../../src/db/migrate.ts";
import { startServerProcess, type ServerProcess } from "./process.ts";
import { processTarget, type ProcessTarget } from "./process-target.ts";

/** A server process on storage of its own, with a project and a key made before it started. */
export interface FreshServer {
  url: string;
  key: string;
  project: string;
  server: ServerProcess;
  target: ProcessTarget;
  /** Stops the server (SIGTERM) and removes its storage. */
  close(): Promise<void>;
}

/** `project` names the project (as a first start would, "default"); `env` adds to the server's environment. */
export async function startFreshServer(options: { project?: string; env?: Record<string, string | undefined> } = {}): Promise<FreshServer> {
  const target = await processTarget();
  const project = options.project ?? uniqueSlug("fresh");
  const env = options.env ?? {};
  const key = await target.use(async (db) => {
    await migrate(db);
    const account = await db.transaction((tx) =>
      createAccount(tx, { user: { email: `${project}@test.local` }, project: { name: "Fresh", slug: project } }),
    );
    return (await createApiKey(db, account.project.id, account.user.id, "test")).key;
  });
  const server = await startServerProcess({ ...target.env, ...env });
  return {
    url: server.url,
    key,
    project,
    server,
    target,
    async close() {
      await server.stop();
      await target.dispose();
    },
  };
}
