import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import type { AppContext } from "../context.ts";
import { notFound, unprocessable } from "../errors.ts";
import { Nullable } from "../schema-parts.ts";
import { createApiKey, findApiKey, listApiKeys, revokeApiKey } from "./api-keys.ts";
import { EXPIRY_FORMS, parseExpiry } from "./key-expiry.ts";

const KeyCreate = Type.Object({
  name: Nullable(Type.String({ maxLength: 200 })),
  expiration_date: Nullable(Type.String({ description: `When the key stops working: ${EXPIRY_FORMS}` })),
}, { additionalProperties: false });

const KeyInfo = Type.Object({
  id: Type.String({ format: "uuid" }),
  prefix: Type.String({ description: "The public part of the key (`tsk_<prefix>.…`)" }),
  name: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Literal("active"), Type.Literal("revoked"), Type.Literal("expired")]),
  created_at: Type.String({ format: "date-time" }),
  expiration_date: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
  revoked_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
  last_used_at: Type.Null({ description: "Uses are not recorded" }),
});

/**
 * A project's own API keys, in the reference's shape (`/keys/`): listed without secrets, created
 * (the raw key answered once, as a JSON string) and revoked. Revoked keys stay listed.
 */
export async function keyRoutes(app: FastifyInstance, ctx: AppContext) {
  const tags = ["API keys"];
  app.get("/keys/", {
    schema: {
      tags, summary: "List the project's API keys (never their secrets)", response: { 200: Type.Array(KeyInfo) },
    },
  }, async (req) => listApiKeys(ctx.db, req.scope.projectId));

  app.post("/keys/", {
    schema: {
      tags, summary: "Create an API key in the caller's project; the answer is the key, shown once",
      body: KeyCreate, response: { 200: Type.String() },
    },
    // The reference's route takes no body: none at all is an empty request.
    preValidation: (req, _reply, done) => {
      req.body ??= {};
      done();
    },
  }, async (req, reply) => {
    const body = (req.body ?? {}) as { name?: string | null; expiration_date?: string | null };
    const expires = body.expiration_date == null ? null : parseExpiry(body.expiration_date);
    if (typeof expires === "string") {
      throw unprocessable([{ loc: ["body", "expiration_date"], msg: expires, type: "value_error" }]);
    }
    const { key } = await createApiKey(ctx.db, req.scope.projectId, req.scope.userId, body.name ?? null, expires);
    // A JSON string, as the reference answers (Fastify would send a bare string as text/plain).
    return reply.type("application/json; charset=utf-8").send(JSON.stringify(key));
  });

  app.delete("/keys/:key_prefix", {
    schema: {
      tags, summary: "Revoke an API key of the project (by prefix, `tsk_<prefix>` or id)",
      params: Type.Object({ key_prefix: Type.String({ maxLength: 200 }) }),
      response: { 200: Type.Object({ message: Type.String() }) },
    },
  }, async (req) => {
    const given = (req.params as { key_prefix: string }).key_prefix;
    const found = await findApiKey(ctx.db, req.scope.projectId, given);
    if (!found) throw notFound(`API key ${given} not found in this project`);
    await revokeApiKey(ctx.db, found.id);
    return { message: "API key revoked" };
  });
}
