import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import type { AppContext } from "../context.ts";
import { HttpError } from "../errors.ts";
import { IdParam, Nullable } from "../schema-parts.ts";
import { secretCipher } from "./cipher.ts";
import { createProviderSecret, deleteProviderSecret, listProviderSecrets } from "./provider-secrets.ts";

const SecretCreate = Type.Object({
  secret: Type.Object({
    provider: Type.String({ minLength: 1, maxLength: 64, description: "openai, anthropic, … or `custom` for an OpenAI-compatible endpoint" }),
    api_key: Type.String({ minLength: 1, maxLength: 4096 }),
    slug: Nullable(Type.String({ pattern: "^[A-Za-z0-9_-]{1,64}$", description: "Model ids `{slug}/model` use this key; defaults to the provider" })),
    name: Nullable(Type.String()),
    base_url: Nullable(Type.String({ format: "uri" })),
  }, { additionalProperties: false }),
}, { additionalProperties: false });

/** Per-project provider keys. Reads never return a key. */
export async function secretRoutes(app: FastifyInstance, ctx: AppContext) {
  const cipher = secretCipher(ctx.config);
  const tags = ["Secrets"];
  app.post("/secrets/", { schema: { tags, summary: "Store a provider key (encrypted)", body: SecretCreate } }, async (req) => {
    if (!cipher) throw new HttpError(409, "Provider secrets need TESSERA_SECRET_KEY to be set on the server");
    return { count: 1, secret: await createProviderSecret(ctx.db, req.scope, cipher, (req.body as any).secret) };
  });
  app.get("/secrets/", { schema: { tags, summary: "List provider keys (without the keys)" } }, async (req) => {
    const secrets = await listProviderSecrets(ctx.db, req.scope);
    return { count: secrets.length, secrets };
  });
  app.delete("/secrets/:id", { schema: { tags, summary: "Delete a provider key", params: IdParam("id") } }, async (req) => {
    await deleteProviderSecret(ctx.db, req.scope, (req.params as any).id);
    return { count: 1 };
  });
}
