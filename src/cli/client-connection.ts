import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { TesseraClient } from "../../packages/client/src/index.ts";
import { Lookup } from "./client-lookup.ts";
import { UsageError } from "./command.ts";

/** Where the client commands find the server and their key: flags, then environment, then config file. */
export interface Connection {
  url: string;
  apiKey: string;
  /** Where the key came from, for the message when the server refuses it. */
  keySource: string;
}

export const DEFAULT_URL = "http://localhost:8000";

export const defaultConfigFile = () => join(process.env.XDG_CONFIG_HOME || join(homedir(), ".config"), "tessera", "config.json");

/** The server refused or could not be asked for lack of a key: exit code 3, like an unreachable server. */
export class AuthFailure extends Error {}

interface ConfigFile {
  url?: string;
  api_key?: string;
}

function readConfigFile(path: string | undefined): { file: string; config: ConfigFile } {
  const file = path ?? defaultConfigFile();
  if (!existsSync(file)) {
    if (path !== undefined) throw new UsageError(`Config file ${file} does not exist`);
    return { file, config: {} };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new UsageError(`Config file ${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new UsageError(`Config file ${file} must hold a JSON object {"url", "api_key"}`);
  const config = parsed as Record<string, unknown>;
  for (const field of ["url", "api_key"]) {
    if (config[field] !== undefined && typeof config[field] !== "string") throw new UsageError(`"${field}" in config file ${file} must be a string`);
  }
  return { file, config: config as ConfigFile };
}

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/** The key the embedded server printed on its first start, when this is the directory it runs in. */
function localServerKey(url: URL): { key: string; source: string } | null {
  if (!LOCAL_HOSTS.has(url.hostname)) return null;
  const file = join(process.env.TESSERA_DATA_DIR || ".tessera", "api-key");
  if (!existsSync(file)) return null;
  const key = readFileSync(file, "utf8").trim();
  return key ? { key, source: file } : null;
}

function serverUrl(text: string, source: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${source} is not a URL: "${text}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`${source} must be an http:// or https:// URL, got "${text}"`);
  return url;
}

export function resolveConnection(flags: { url?: string; "api-key"?: string; config?: string }): Connection {
  const { file, config } = readConfigFile(flags.config);
  const [urlText, urlSource] =
    flags.url !== undefined ? [flags.url, "--url"]
    : process.env.TESSERA_URL ? [process.env.TESSERA_URL, "TESSERA_URL"]
    : config.url ? [config.url, `"url" in ${file}`]
    : [DEFAULT_URL, "the default URL"];
  const url = serverUrl(urlText, urlSource);
  // The SDK adds /api itself; accept the API root as well as the server's origin.
  const base = url.href.replace(/\/+$/, "").replace(/\/api$/, "");
  const key =
    flags["api-key"] ? { key: flags["api-key"], source: "--api-key" }
    : process.env.TESSERA_API_KEY ? { key: process.env.TESSERA_API_KEY, source: "TESSERA_API_KEY" }
    : config.api_key ? { key: config.api_key, source: `"api_key" in ${file}` }
    : localServerKey(url);
  if (!key) {
    throw new AuthFailure(`No API key for ${base}: set TESSERA_API_KEY, pass --api-key, or put {"url", "api_key"} in ${defaultConfigFile()}`);
  }
  return { url: base, apiKey: key.key.trim(), keySource: key.source };
}

/** Per request; uploads and downloads stream a whole file within one request, so they get longer. */
export const REQUEST_TIMEOUT_MS = 60_000;
export const TRANSFER_TIMEOUT_MS = 60 * 60_000;

export function openClient(flags: { url?: string; "api-key"?: string; config?: string }, timeoutMs = REQUEST_TIMEOUT_MS) {
  const connection = resolveConnection(flags);
  const options = { baseUrl: connection.url, apiKey: connection.apiKey, timeoutMs };
  const client = new TesseraClient(options);
  return { connection, client, lookup: new Lookup(client) };
}
