import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import type { AppContext } from "../context.ts";
import { HttpError } from "../errors.ts";
import { documentationOnly } from "../http/openapi.ts";
import { FreeObject, IdParam, Nullable } from "../schema-parts.ts";
import { secretCipher } from "./cipher.ts";
import { createSecret, deleteSecret, getSecret, listSecrets, updateSecret } from "./provider-secrets.ts";

// Listed fields: anything else is ignored and named in x-tessera-ignored-fields (schema-parts.ts).
const Known = { additionalProperties: false } as const;

const Header = Type.Object({
  name: Nullable(Type.String({ maxLength: 256 })),
  description: Nullable(Type.String({ maxLength: 4096 })),
}, Known);

// The reference's `{kind, data}` and the older `{provider, api_key, …}`; vault-input.ts checks which fields each needs.
const SecretBody = Type.Object({
  kind: Nullable(Type.String()),
  data: Nullable(FreeObject),
  provider: Nullable(Type.String({ minLength: 1, maxLength: 64, description: "older shape: openai, anthropic…" })),
  api_key: Nullable(Type.String({ minLength: 1, maxLength: 4096 })),
  slug: Nullable(Type.String({ pattern: "^[A-Za-z0-9_-]{1,64}$", description: "older shape: model ids {slug}/…" })),
  name: Nullable(Type.String()),
  base_url: Nullable(Type.String()),
}, Known);

const SecretCreateBody = Type.Object({
  header: Nullable(Header),
  secret: SecretBody,
  slug: Nullable(Type.String({ pattern: "^[A-Za-z0-9_-]{1,128}$" })),
}, Known);
const SecretEditBody = Type.Object({ header: Nullable(Header), secret: Nullable(SecretBody) }, Known);
const SecretParam = Type.Object({ secret_id: Type.String({ minLength: 1, maxLength: 256 }) });

// The reference's SecretResponseDTO; `data.provider.key` is a mask, never the key.
const SecretRecord = Type.Object({
  id: Type.String(),
  slug: Type.String(),
  kind: Type.String(),
  data: FreeObject,
  header: Type.Object({ name: Type.Optional(Type.String()), description: Type.Optional(Type.String()) }, { additionalProperties: true }),
  lifecycle: Type.Object({ created_at: Type.String(), updated_at: Type.String() }, { additionalProperties: true }),
}, { additionalProperties: true });
const answers = (schema: object) => documentationOnly({ response: { 200: schema } });

type Body = Record<string, unknown>;
const secretId = (params: unknown) => (params as { secret_id: string }).secret_id;

/** The reference's vault: per-project provider keys and custom providers. Reads never return a key. */
export async function secretRoutes(app: FastifyInstance, ctx: AppContext) {
  const cipher = secretCipher(ctx.config);
  const sealing = () => {
    if (!cipher) throw new HttpError(409, "Provider secrets need TESSERA_SECRET_KEY to be set on the server");
    return cipher;
  };
  const tags = ["Secrets"];
  app.post("/secrets/", {
    schema: { tags, summary: "Store a provider key or custom provider (key encrypted)", body: SecretCreateBody }, config: answers(SecretRecord),
  }, async (req) => createSecret(ctx.db, req.scope, sealing(), req.body as Body));
  app.get("/secrets/", {
    schema: { tags, summary: "List secrets (keys masked)" }, config: answers(Type.Array(SecretRecord)),
  }, async (req) => listSecrets(ctx.db, req.scope));
  app.get("/secrets/:secret_id", {
    schema: { tags, summary: "Fetch a secret by id or slug (key masked)", params: SecretParam }, config: answers(SecretRecord),
  }, async (req) => getSecret(ctx.db, req.scope, secretId(req.params)));
  app.put("/secrets/:secret_id", {
    schema: { tags, summary: "Rename or replace a secret", params: IdParam("secret_id"), body: SecretEditBody }, config: answers(SecretRecord),
  }, async (req) => updateSecret(ctx.db, req.scope, sealing(), secretId(req.params), req.body as Body));
  app.delete("/secrets/:secret_id", {
    schema: { tags, summary: "Delete a secret", params: IdParam("secret_id") },
    config: documentationOnly({ response: { 204: { type: "null", description: "Deleted" } } }),
  }, async (req, reply) => {
    await deleteSecret(ctx.db, req.scope, secretId(req.params));
    return reply.code(204).send();
  });
}
