import { resolve } from "node:path";
import { DEFAULT_TEMPLATE_LIMITS as TEMPLATE_DEFAULTS } from "./runtime/templates/render-budget.ts";

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
  /** The rendering budget of one prompt: output bytes and evaluation steps. */
  templateMaxBytes: number;
  templateMaxSteps: number;
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
    host: env.HOST || "0.0.0.0",
    publicUrl: (env.TESSERA_PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ""),
    dataDir: resolve(env.TESSERA_DATA_DIR || ".tessera"),
    databaseUrl: env.DATABASE_URL || null,
    adminKey: env.TESSERA_ADMIN_KEY || null,
    bodyLimit: integer("TESSERA_BODY_LIMIT", env.TESSERA_BODY_LIMIT, 10 * 1024 * 1024),
    logLevel: env.LOG_LEVEL || "info",
    secretKey: env.TESSERA_SECRET_KEY || null,
    allowPrivateHooks: env.TESSERA_ALLOW_PRIVATE_HOOKS === "true",
    workers: env.TESSERA_WORKERS === "auto" ? 0 : integer("TESSERA_WORKERS", env.TESSERA_WORKERS, 1),
    templateMaxBytes: integer("TESSERA_TEMPLATE_MAX_BYTES", env.TESSERA_TEMPLATE_MAX_BYTES, TEMPLATE_DEFAULTS.maxBytes),
    templateMaxSteps: integer("TESSERA_TEMPLATE_MAX_STEPS", env.TESSERA_TEMPLATE_MAX_STEPS, TEMPLATE_DEFAULTS.maxSteps),
  };
}
