import { execFile } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { promptConfig, type Api } from "./api.ts";
import { cpuTimeOf } from "./processes.ts";

const run = promisify(execFile);

export interface Load {
  rps: number;
  requests: number;
  p99: number;
  /** The server's CPU time (user + system) per answered request, in µs, when its pid was given. */
  cpu?: number;
  /** Answers other than the expected status, errors and timeouts. */
  failures: number;
}

/** 64 connections for `seconds`, the load every hot-path figure and its baseline get, from a fresh client process. */
export async function load(url: string, seconds: number, body: string, headers: Record<string, string>, expect: "2xx" | "3xx", serverPid?: number): Promise<Load> {
  const options = { url, connections: 64, duration: seconds, method: "POST", headers: { "content-type": "application/json", ...headers }, body, expect };
  const before = serverPid === undefined ? 0 : cpuTimeOf(serverPid);
  const { stdout } = await run(process.execPath, [fileURLToPath(new URL("./load-client.ts", import.meta.url)), JSON.stringify(options)], { maxBuffer: 1 << 20 });
  const result = JSON.parse(stdout) as Load;
  if (serverPid !== undefined && result.requests > 0) result.cpu = (cpuTimeOf(serverPid) - before) / result.requests;
  return result;
}

export const RETRIEVE_PATH = "/api/applications/revisions/retrieve";
export const RETRIEVE = JSON.stringify({ application_ref: { slug: "hot" }, environment_ref: { slug: "production" } });

/** An application deployed to production; returns the ETag its retrieval carries. */
export async function deployHotApplication(api: Api): Promise<string> {
  const app = (await api.post("/simple/applications/", { application: { slug: "hot", data: promptConfig(1) } })).application;
  await api.post("/applications/revisions/deploy", { application_variant_ref: { id: app.variant_id }, environment_ref: { slug: "production" } });
  const res = await fetch(`${api.url}/api/applications/revisions/retrieve`, {
    method: "POST",
    headers: { authorization: `ApiKey ${api.key}`, "content-type": "application/json" },
    body: RETRIEVE,
  });
  await res.arrayBuffer();
  const etag = res.headers.get("etag");
  if (res.status !== 200 || !etag) throw new Error(`retrieve → ${res.status}, etag ${etag}`);
  return etag;
}

export const retrieveLoad = (api: Api, seconds: number, etag?: string, serverPid?: number) =>
  load(`${api.url}${RETRIEVE_PATH}`, seconds, RETRIEVE, { authorization: `ApiKey ${api.key}`, ...(etag ? { "if-none-match": etag } : {}) }, etag ? "3xx" : "2xx", serverPid);

/**
 * The baseline of a hot-path line: the empty route gets the very request Tessera gets (same path,
 * body and headers, with a key and an ETag of the same shape and length), so the ratio measures what
 * Tessera adds to a request, not the size of the request.
 */
export const baselineLoad = (origin: string, seconds: number, withTag: boolean, serverPid?: number) =>
  load(`${origin}${RETRIEVE_PATH}`, seconds, RETRIEVE, {
    authorization: `ApiKey tsk_${randomBytes(9).toString("base64url")}.${randomBytes(24).toString("base64url")}`,
    ...(withTag ? { "if-none-match": `"${randomUUID()}@${Date.now()}@${randomUUID()}"` } : {}),
  }, "2xx", serverPid);
