import type { FastifyInstance, FastifyRequest } from "fastify";
import { checkApiKey, recentlyAccepted } from "../accounts/api-keys.ts";
import type { Scope } from "../accounts/scope.ts";
import type { Database } from "../db/database.ts";
import { unauthorized } from "../errors.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** The project (and user) of the API key that authenticated this request. */
    scope: Scope;
  }
}

const REASON = {
  malformed: "Malformed API key: expected a key issued by this server (tsk_…)",
  unknown: "Unknown API key",
  revoked: "API key has been revoked",
  expired: "API key has expired",
} as const;

/**
 * The key of `Authorization: ApiKey <key>`, or of a bare `Authorization: <key>` (what the reference's
 * generated client sends); null for any other form.
 */
export function apiKeyOf(header: string): string | null {
  const parts = header.trim().split(/\s+/);
  if (parts.length === 1) return parts[0] && parts[0].toLowerCase() !== "apikey" ? parts[0] : null;
  return parts.length === 2 && parts[0].toLowerCase() === "apikey" ? parts[1] : null;
}

/** Resolves `Authorization: ApiKey <key>` (or a bare key) to the key's project, or answers 401 saying what is wrong. */
export async function authenticate(db: Database, request: FastifyRequest): Promise<Scope> {
  const header = request.headers.authorization;
  if (!header) throw unauthorized("Missing Authorization header: send 'Authorization: ApiKey <key>'");
  const key = apiKeyOf(header);
  if (!key) throw unauthorized("Malformed Authorization header: expected 'ApiKey <key>'");
  const check = await checkApiKey(db, key);
  if (typeof check === "string") throw unauthorized(REASON[check]);
  return { projectId: check.projectId, userId: check.userId };
}

/** The scope of an `Authorization` header whose key was accepted moments ago, without a promise; else undefined. */
export function knownScope(header: string | undefined): Scope | undefined {
  const known = header === undefined ? undefined
    : header.startsWith("ApiKey ") ? recentlyAccepted(header.slice(7))
    : recentlyAccepted(header);
  return known && { projectId: known.projectId, userId: known.userId };
}

/**
 * Sets `request.scope` from its API key, then calls `done` (with the 401 when the key is refused): a key accepted
 * moments ago costs no promise, the hot path of every client.
 */
export function scopeRequest(db: Database, request: FastifyRequest, done: (error?: Error) => void): void {
  const known = knownScope(request.headers.authorization);
  if (known) {
    request.scope = known;
    return done();
  }
  authenticate(db, request).then((scope) => {
    request.scope = scope;
    done();
  }, done);
}

/** Every route registered in this encapsulated context requires an API key. */
export function requireApiKey(app: FastifyInstance, db: Database): void {
  app.decorateRequest("scope", null as unknown as Scope);
  app.addHook("onRequest", (request, _reply, done) => scopeRequest(db, request, done));
}
