/**
 * Whether an error means the database cannot be reached or did not answer in time, rather than that a
 * query was wrong: refused or dropped connections, a server shutting down or starting, a full server,
 * timeouts. Such a request is answered 503 with Retry-After; the same request later may well succeed.
 */
export function databaseUnavailable(error: unknown): string | null {
  if (!error || typeof error !== "object") return null;
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === "string" ? message : "";
  if (typeof code === "string") {
    if (NETWORK_CODES.has(code)) return `cannot reach PostgreSQL (${code})`;
    // 08: connection exception; 57P01-57P03: shutting down, crashed, starting; 53300: too many connections.
    if (/^08/.test(code) || /^57P0[123]$/.test(code) || code === "53300") return `PostgreSQL refused the connection: ${text}`;
    if (code === "57014" && /statement timeout/.test(text)) return "the query took longer than TESSERA_DB_STATEMENT_TIMEOUT_MS";
  }
  if (/timeout exceeded when trying to connect|connection timeout/i.test(text)) {
    return `no connection to PostgreSQL within TESSERA_DB_CONNECT_TIMEOUT_MS (${text})`;
  }
  if (/Query read timeout/.test(text)) return "PostgreSQL did not answer within TESSERA_DB_STATEMENT_TIMEOUT_MS";
  if (/Connection terminated|not queryable|Connection closed|Client was closed/i.test(text)) return `the connection to PostgreSQL was lost (${text})`;
  return null;
}

const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);

/** Seconds a client should wait before retrying while the database is unavailable. */
export const RETRY_AFTER_SECONDS = 2;
