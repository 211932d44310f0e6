import type { Scope } from "../accounts/scope.ts";
import type { Queryable } from "../db/database.ts";
import { notFound } from "../errors.ts";
import { uuidv7 } from "../ids/uuid-v7.ts";
import type { SecretCipher } from "./cipher.ts";

export interface ProviderSecretInput {
  provider: string;
  api_key: string;
  slug?: string | null;
  name?: string | null;
  base_url?: string | null;
}

/** What a runtime needs to call a provider; only the runtime ever sees `api_key`. Model ids `{provider}/model` pick it. */
export interface ProviderSecret {
  provider: string;
  api_key: string;
  base_url?: string;
}

const PUBLIC = "id, slug, provider, name, base_url, created_at";

export async function createProviderSecret(db: Queryable, scope: Scope, cipher: SecretCipher, input: ProviderSecretInput) {
  const [row] = await db.query(
    `INSERT INTO provider_secrets (id, project_id, slug, provider, name, base_url, encrypted_key, created_by_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${PUBLIC}`,
    [uuidv7(), scope.projectId, input.slug ?? input.provider, input.provider, input.name ?? null, input.base_url ?? null, cipher.encrypt(input.api_key), scope.userId],
  );
  return row;
}

export const listProviderSecrets = (db: Queryable, scope: Scope) =>
  db.query(`SELECT ${PUBLIC} FROM provider_secrets WHERE project_id = $1 ORDER BY id`, [scope.projectId]);

export async function deleteProviderSecret(db: Queryable, scope: Scope, id: string) {
  const rows = await db.query("DELETE FROM provider_secrets WHERE id = $1 AND project_id = $2 RETURNING id", [id, scope.projectId]);
  if (rows.length === 0) throw notFound(`Secret ${id} not found`);
}

/** The project's provider keys, decrypted for one invocation. */
export async function projectSecrets(db: Queryable, scope: Scope, cipher: SecretCipher | null): Promise<ProviderSecret[]> {
  if (!cipher) return [];
  const rows = await db.query<{ provider: string; slug: string; base_url: string | null; encrypted_key: Uint8Array }>(
    "SELECT provider, slug, base_url, encrypted_key FROM provider_secrets WHERE project_id = $1", [scope.projectId],
  );
  // A secret answers to its slug (which defaults to the provider's name): `my-vllm/llama-3` picks slug my-vllm.
  return rows.map((r) => ({ provider: r.slug, api_key: cipher.decrypt(r.encrypted_key), ...(r.base_url ? { base_url: r.base_url } : {}) }));
}
