import { resolve } from "node:path";

/** Everything the server reads from its environment, in one place (the README's configuration table). */
export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  dataDir: string;
  databaseUrl: string | null;
  adminKey: string | null;
  bodyLimit: number;
  logLevel: string;
  secretKey: string | null;
  allowPrivateHooks: boolean;
  workers: number;
}

function integer(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${value}"`);
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = integer("PORT", env.PORT, 8000);
  return {
    port,
    // Local only unless asked: a fresh server holding a printed key is not exposed to the network by default.
    host: env.HOST || "127.0.0.1",
    publicUrl: (env.TESSERA_PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ""),
    dataDir: resolve(env.TESSERA_DATA_DIR || ".tessera"),
    databaseUrl: env.DATABASE_URL || null,
    adminKey: env.TESSERA_ADMIN_KEY || null,
    bodyLimit: integer("TESSERA_BODY_LIMIT", env.TESSERA_BODY_LIMIT, 10 * 1024 * 1024),
    logLevel: env.LOG_LEVEL || "info",
    secretKey: env.TESSERA_SECRET_KEY || null,
    allowPrivateHooks: env.TESSERA_ALLOW_PRIVATE_HOOKS === "true",
    workers: env.TESSERA_WORKERS === "auto" ? 0 : integer("TESSERA_WORKERS", env.TESSERA_WORKERS, 1),
  };
}
