/*
 * PostgreSQL errors that only a client's input can cause, told in the API's words: what is wrong and which
 * field, never the database's own text (constraint, table and type names are not the API's vocabulary).
 * Routes that know more say more where the statement runs (unique-violation.ts); this is the floor.
 */

interface DatabaseError {
  code: string;
  message?: string;
  detail?: string;
  table?: string;
  column?: string;
  constraint?: string;
}

/** What each table holds, as the API names it. */
const ENTITY: Record<string, string> = {
  users: "a user",
  organizations: "an organization",
  workspaces: "a workspace",
  projects: "a project",
  memberships: "a membership",
  api_keys: "an API key",
  artifacts: "an artifact",
  variants: "a variant",
  revisions: "a revision",
  provider_secrets: "a secret",
  testcases: "a testcase",
  evaluation_runs: "an evaluation run",
  evaluation_scenarios: "an evaluation scenario",
  evaluation_results: "an evaluation result",
  evaluation_metrics: "an evaluation metric",
  evaluation_queues: "an evaluation queue",
};

// Columns that scope a key rather than say what the client chose.
const SCOPING = new Set(["project_id", "kind", "organization_id"]);

const entity = (table: string | undefined) => (table && ENTITY[table]) || "an entity";

/** The columns and values of a `Key (a, b)=(x, y) …` detail; only the last value may hold a ", ". */
function keyOf(detail: string | undefined): { columns: string[]; values: string[] } | null {
  const match = /^Key \(([^)]*)\)=\((.*)\) (?:already exists|is not present|is still referenced)/s.exec(detail ?? "");
  if (!match) return null;
  const columns = match[1]!.split(", ").map((c) => c.replace(/^"|"$/g, ""));
  const parts = match[2]!.split(", ");
  const values = [...parts.slice(0, columns.length - 1), parts.slice(columns.length - 1).join(", ")];
  return { columns, values };
}

function uniqueViolation(e: DatabaseError): string {
  const key = keyOf(e.detail);
  if (!key) return `Conflict: ${entity(e.table)} with the same key already exists`;
  const chosen = key.columns.map((c, i) => [c, key.values[i]!] as const).filter(([c]) => !SCOPING.has(c));
  return `Conflict: ${entity(e.table)} with ${chosen.map(([c, v]) => `${c} "${v}"`).join(" and ")} already exists`;
}

function foreignKeyViolation(e: DatabaseError): [number, string] {
  const key = keyOf(e.detail);
  const table = /table "([^"]+)"/.exec(e.detail ?? "")?.[1];
  const value = key?.values[0] ?? "";
  if (e.detail?.includes("is still referenced")) return [409, `Conflict: ${value} is still used by ${entity(table)}`];
  return [404, `Not found: ${key?.columns[0] ?? "a reference"} ${value} names ${entity(table)} that does not exist`];
}

/** The field a check constraint guards: PostgreSQL names them `<table>_<column>_check`. */
function checkedField(e: DatabaseError): string {
  const name = e.constraint ?? "";
  const stem = e.table && name.startsWith(`${e.table}_`) ? name.slice(e.table.length + 1) : name;
  return stem.replace(/_check\d*$/, "") || "a field";
}

/** A quoted value at the end of a data exception's message (`…: "0000-01-01"`). */
const quotedValue = (message = "") => /: (".*")$/s.exec(message)?.[1];

function dataException(e: DatabaseError): string {
  const value = quotedValue(e.message);
  const named = value ? ` ${value}` : "";
  switch (e.code) {
    case "22P02": {
      const type = /for type (\w+)/.exec(e.message ?? "")?.[1];
      if (type === "json" || type === "jsonb") return "Invalid value: a JSON value cannot be stored (is it valid JSON?)";
      return `Invalid value${named}: expected ${type === "uuid" ? "a UUID" : type ? `a value of type ${type}` : "a value of another type"}`;
    }
    case "22001": return "Invalid value: a value is too long";
    case "22003": return "Invalid value: a number is out of range";
    case "22007":
    case "22008": return `Invalid value${named}: not a valid date and time, or out of range`;
    case "22021": return "Invalid value: text holds a NUL character (\\u0000) or bytes that are not UTF-8";
    case "22P05": return "Invalid value: text holds a character that cannot be stored (\\u0000 inside JSON)";
    case "2202E": return "Invalid value: an index is out of range";
    default: return `Invalid value: a value in the request cannot be stored (data exception ${e.code})`;
  }
}

/** The answer to a database error caused by a client's input, or undefined for any other error. */
export function clientErrorOf(error: unknown): [number, string] | undefined {
  const e = error as DatabaseError;
  if (!e || typeof e.code !== "string" || !/^[0-9A-Z]{5}$/.test(e.code)) return undefined;
  switch (e.code) {
    case "23505": return [409, uniqueViolation(e)];
    case "23503": return foreignKeyViolation(e);
    case "23502": return [422, `Invalid value: ${e.column ?? "a field"} is required`];
    case "23514": return [422, `Invalid value: ${checkedField(e)} is not one of the values allowed`];
    case "21000": return [422, "Invalid value: the request names the same item twice (one item per key in a batch)"];
  }
  if (e.code.startsWith("22")) return [422, dataException(e)];
  if (e.code.startsWith("54")) return [413, "A value is too large or too complex to store"];
  return undefined;
}
