import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import { json } from "../db/database.ts";
import { conflictOnDuplicate } from "../db/unique-violation.ts";
import { notFound } from "../errors.ts";
import { uuidv7 } from "../ids/uuid-v7.ts";
import type { SecretCipher } from "./cipher.ts";
import { MASKED_KEY, secretInput, type SecretInput } from "./vault-input.ts";

/** What a runtime needs to call a provider; only the runtime ever sees `api_key`. Model ids `{provider}/…` pick it. */
export interface ProviderSecret {
  provider: string;
  api_key: string;
  base_url?: string;
  /** A custom provider's deployment kind: its model ids read `{provider}/{family}/model`. */
  family?: string;
}

interface SecretRow {
  id: string;
  slug: string;
  kind: "provider_key" | "custom_provider";
  provider: string;
  name: string | null;
  description: string | null;
  base_url: string | null;
  data: Record<string, any> | null;
  has_key: boolean;
  created_at: Date;
  updated_at: Date | null;
}

const COLUMNS = `id, slug, kind, provider, name, description, base_url, data, encrypted_key IS NOT NULL AS has_key,
  created_at, updated_at`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The stored data, derived from the columns for rows written before the vault shape. */
function dataOf(row: Pick<SecretRow, "kind" | "provider" | "slug" | "base_url" | "data">): Record<string, any> {
  if (row.data) return row.data;
  return row.kind === "custom_provider"
    ? { kind: "custom", provider: { url: row.base_url }, models: [], provider_slug: row.slug }
    : { kind: row.provider, provider: {} };
}

/**
 * The reference's SecretResponseDTO: `{id, slug, kind, data, header, lifecycle}`, a custom provider's
 * `data.model_keys` filled in. The key itself is never returned: `data.provider.key` is a mask.
 */
function secretRecord(row: SecretRow) {
  const data = structuredClone(dataOf(row));
  if (row.has_key) data.provider = { ...data.provider, key: MASKED_KEY };
  if (row.kind === "custom_provider") {
    data.model_keys = (data.models ?? []).map((m: { slug: string }) => `${data.provider_slug}/${data.kind}/${m.slug}`);
  }
  const header = {
    ...(row.name !== null ? { name: row.name } : {}),
    ...(row.description !== null ? { description: row.description } : {}),
  };
  const created = row.created_at.toISOString();
  return {
    id: row.id, slug: row.slug, kind: row.kind, data, header,
    lifecycle: { created_at: created, updated_at: row.updated_at?.toISOString() ?? created },
  };
}

/** A slug as the reference derives one: the name in ASCII kebab-case plus the last 12 characters of an id. */
function derivedSlug(name: string, id: string): string {
  const stem = name.normalize("NFKD").replace(/[^\x00-\x7f]/g, "").toLowerCase()
    .replace(/[^\w\s-]/g, "").replace(/[-\s]+/g, "-").replace(/^-+|-+$/g, "");
  const tail = id.replace(/-/g, "").slice(-12);
  return stem ? `${stem}-${tail}` : tail;
}

/** Stores a secret sent in either shape; answers it in the reference's shape. 409 when its slug is taken. */
export async function createSecret(db: Queryable, scope: Scope, cipher: SecretCipher, body: Record<string, any>) {
  const input = secretInput(body);
  const id = uuidv7();
  const name = input.name ?? input.provider;
  const slug = input.slug ?? derivedSlug(name, id);
  const [row] = await conflictOnDuplicate(db.query<SecretRow>(
    `INSERT INTO provider_secrets
       (id, project_id, slug, provider, name, description, base_url, kind, data, encrypted_key, created_by_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11) RETURNING ${COLUMNS}`,
    [
      id, scope.projectId, slug, input.provider, name, input.description, input.baseUrl, input.kind, json(input.data),
      input.key === null ? null : cipher.encrypt(input.key), scope.userId,
    ],
  ), `A secret with slug ${JSON.stringify(slug)} already exists in this project`);
  return secretRecord(row);
}

/** The project's secrets, oldest first, keys masked. */
export async function listSecrets(db: Queryable, scope: Scope) {
  const rows = await db.query<SecretRow>(
    `SELECT ${COLUMNS} FROM provider_secrets WHERE project_id = $1 ORDER BY id`, [scope.projectId],
  );
  return rows.map(secretRecord);
}

async function findRow(db: Queryable, scope: Scope, idOrSlug: string): Promise<SecretRow> {
  const byId = UUID.test(idOrSlug);
  const [row] = await db.query<SecretRow>(
    `SELECT ${COLUMNS} FROM provider_secrets WHERE project_id = $1 AND ${byId ? "id = $2::uuid" : "slug = $2"}`,
    [scope.projectId, byId ? idOrSlug.toLowerCase() : idOrSlug],
  );
  if (!row) throw notFound("Secret not found");
  return row;
}

/** One secret by id or slug (404 "Secret not found"), key masked. */
export async function getSecret(db: Queryable, scope: Scope, idOrSlug: string) {
  return secretRecord(await findRow(db, scope, idOrSlug));
}

/**
 * Applies `{header?, secret?}`: a header's fields rename or redescribe; a secret replaces the data,
 * keeping the stored key when none (or the mask) is sent and the stored model list when none is.
 */
export async function updateSecret(
  db: Queryable, scope: Scope, cipher: SecretCipher, id: string, body: Record<string, any>,
) {
  const stored = await findRow(db, scope, id);
  const header = body.header ?? {};
  const name: string | null = typeof header.name === "string" && header.name.trim() ? header.name : stored.name;
  const description: string | null =
    typeof header.description === "string" ? header.description : stored.description;
  let input: SecretInput | null = null;
  if (body.secret) {
    input = secretInput({ secret: body.secret, header: { name, description } });
    const before = dataOf(stored);
    for (const field of ["models", "harnesses"]) {
      if (input.data[field] === undefined && before[field] !== undefined) input.data[field] = before[field];
    }
  } else if (stored.kind === "custom_provider" && stored.data) {
    input = { ...storedInput(stored), data: { ...stored.data, provider_slug: name } };
  }
  const [row] = await db.query<SecretRow>(
    `UPDATE provider_secrets SET name = $3, description = $4,
       kind = COALESCE($5, kind), provider = COALESCE($6, provider),
       base_url = CASE WHEN $5::text IS NULL THEN base_url ELSE $7 END,
       data = COALESCE($8::jsonb, data), encrypted_key = COALESCE($9, encrypted_key), updated_at = now()
     WHERE id = $1 AND project_id = $2 RETURNING ${COLUMNS}`,
    [
      stored.id, scope.projectId, name, description,
      input?.kind ?? null, input?.provider ?? null, input?.baseUrl ?? null,
      input ? json(input.data) : null, input?.key ? cipher.encrypt(input.key) : null,
    ],
  );
  return secretRecord(row);
}

function storedInput(row: SecretRow): SecretInput {
  return {
    kind: row.kind, slug: row.slug, name: row.name, description: row.description, data: dataOf(row), key: null,
    provider: row.provider, baseUrl: row.base_url,
  };
}

export async function deleteSecret(db: Queryable, scope: Scope, id: string) {
  const rows = await db.query(
    "DELETE FROM provider_secrets WHERE id = $1 AND project_id = $2 RETURNING id", [id, scope.projectId],
  );
  if (rows.length === 0) throw notFound("Secret not found");
}

/** The reference spells two families differently from the runtime's provider catalog. */
const RUNTIME_FAMILY: Record<string, string> = { perplexityai: "perplexity", mistralai: "mistral" };

/**
 * The project's keys, decrypted for one invocation: a provider key answers to its family (`openai/…`,
 * the oldest first), a custom provider to its name, whose model ids read `{name}/{kind}/{model}`.
 */
export async function projectSecrets(
  db: Queryable, scope: Scope, cipher: SecretCipher | null,
): Promise<ProviderSecret[]> {
  if (!cipher) return [];
  const rows = await db.query<{
    kind: string; provider: string; slug: string; base_url: string | null;
    data: Record<string, any> | null; encrypted_key: Uint8Array | null;
  }>(
    `SELECT kind, provider, slug, base_url, data, encrypted_key FROM provider_secrets
      WHERE project_id = $1 ORDER BY id`,
    [scope.projectId],
  );
  return rows.map((r) => {
    const api_key = r.encrypted_key ? cipher.decrypt(r.encrypted_key) : "";
    if (r.kind !== "custom_provider") {
      // Rows from before the vault shape answered to their slug (which defaulted to the provider).
      const provider = r.data ? RUNTIME_FAMILY[r.provider] ?? r.provider : r.slug;
      return { provider, api_key };
    }
    const family = r.data?.kind as string | undefined;
    return {
      provider: (r.data?.provider_slug as string | undefined) ?? r.slug, api_key,
      ...(r.base_url ? { base_url: r.base_url } : {}),
      ...(family ? { family: RUNTIME_FAMILY[family] ?? family } : {}),
    };
  });
}
