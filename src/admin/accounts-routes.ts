import { timingSafeEqual, createHash } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { Type, type Static } from "typebox";
import { createAccount, type Account } from "../accounts/accounts.ts";
import { createApiKey } from "../accounts/api-keys.ts";
import type { Database } from "../db/database.ts";
import { conflict, unauthorized } from "../errors.ts";

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));
const FreeObject = Type.Object({}, { additionalProperties: true });
const EntityRef = Type.Object({ ref: Nullable(Type.String()), id: Nullable(Type.String()), slug: Nullable(Type.String()), email: Nullable(Type.String()) }, { additionalProperties: false });

const Options = Type.Object({
  dry_run: Nullable(Type.Boolean()),
  idempotency_key: Nullable(Type.String()),
  create_identities: Nullable(Type.Boolean()),
  create_api_keys: Nullable(Type.Boolean()),
  return_api_keys: Nullable(Type.Boolean()),
  seed_defaults: Nullable(Type.Boolean()),
  reason: Nullable(Type.String()),
}, { additionalProperties: false });

const AccountCreate = Type.Object({
  options: Nullable(Options),
  user: Type.Object({
    email: Type.String({ minLength: 3, maxLength: 320 }),
    username: Nullable(Type.String()),
    name: Nullable(Type.String()),
    is_admin: Nullable(Type.Boolean()),
    is_root: Nullable(Type.Boolean()),
    metadata: Nullable(FreeObject),
  }, { additionalProperties: false }),
  organization: Nullable(Type.Object({ name: Type.String(), slug: Nullable(Type.String()), owner_user_ref: Nullable(EntityRef), metadata: Nullable(FreeObject) }, { additionalProperties: false })),
  workspace: Nullable(Type.Object({ name: Type.String(), slug: Nullable(Type.String()), organization_ref: Type.Optional(EntityRef), metadata: Nullable(FreeObject) }, { additionalProperties: false })),
  project: Nullable(Type.Object({ name: Type.String(), slug: Nullable(Type.String()), organization_ref: Type.Optional(EntityRef), workspace_ref: Type.Optional(EntityRef), is_default: Nullable(Type.Boolean()), metadata: Nullable(FreeObject) }, { additionalProperties: false })),
  api_keys: Nullable(Type.Array(Type.Object({ project_ref: Type.Optional(EntityRef), user_ref: Type.Optional(EntityRef), name: Nullable(Type.String()), expires_at: Nullable(Type.String({ format: "date-time" })) }, { additionalProperties: false }))),
}, { additionalProperties: false });

const AccountsCreate = Type.Object({
  options: Nullable(Options),
  accounts: Type.Record(Type.String(), AccountCreate),
}, { additionalProperties: false });

const AccountRead = Type.Object({
  user: FreeObject,
  organizations: Type.Record(Type.String(), FreeObject),
  workspaces: Type.Record(Type.String(), FreeObject),
  projects: Type.Record(Type.String(), FreeObject),
  api_keys: Type.Optional(Type.Record(Type.String(), Type.String())),
});
const AccountsResponse = Type.Object({ accounts: Type.Record(Type.String(), AccountRead), errors: Nullable(Type.Array(FreeObject)) });

const digest = (s: string) => createHash("sha256").update(s).digest();

/**
 * Reference-compatible account provisioning (`POST /admin/simple/accounts/`), authorised by
 * `Authorization: Access <TESSERA_ADMIN_KEY>`. All accounts of one request are created in one
 * transaction: either all of them exist afterwards or none.
 */
export async function adminAccountsRoutes(app: FastifyInstance, opts: { db: Database; adminKey: string }) {
  const expected = digest(opts.adminKey);
  app.addHook("onRequest", async (request) => {
    const header = request.headers.authorization;
    if (!header) throw unauthorized("Missing Authorization header: send 'Authorization: Access <admin key>'");
    const [scheme, key] = header.trim().split(/\s+/, 2);
    if (scheme.toLowerCase() !== "access" || !key) throw unauthorized("Malformed Authorization header: expected 'Access <admin key>'");
    if (!timingSafeEqual(digest(key), expected)) throw unauthorized("Unknown admin key");
  });

  app.post("/admin/simple/accounts/", {
    schema: { tags: ["Admin"], summary: "Create simple accounts", body: AccountsCreate, response: { 200: AccountsResponse } },
  }, async (request) => {
    const body = request.body as Static<typeof AccountsCreate>;
    const emails = Object.values(body.accounts).map((a) => a.user.email.toLowerCase());
    if (new Set(emails).size !== emails.length) throw conflict("Two accounts in the request share one user email");
    const created: Record<string, Static<typeof AccountRead>> = {};
    const commit = async () => {
      await opts.db.transaction(async (tx) => {
        const taken = await tx.query<{ email: string }>("SELECT email FROM users WHERE lower(email) = ANY($1::text[])", [emails]);
        if (taken.length > 0) throw conflict(`A user with email ${taken[0].email} already exists`);
        for (const [name, spec] of Object.entries(body.accounts)) {
          const options = { ...body.options, ...spec.options };
          const account = await createAccount(tx, spec, options.seed_defaults ?? true);
          const read = accountRead(account);
          if (options.create_api_keys || spec.api_keys?.length) {
            const keys: Record<string, string> = {};
            const requested = spec.api_keys?.length ? spec.api_keys : [{ name: null, expires_at: null }];
            for (const [i, k] of requested.entries()) {
              const { key } = await createApiKey(tx, account.project.id, account.user.id, k.name ?? null, k.expires_at ?? null);
              keys[i === 0 ? "key" : k.name ?? `key_${i + 1}`] = key;
            }
            if (options.return_api_keys) read.api_keys = keys;
          }
          created[name] = read;
        }
        if (body.options?.dry_run) throw new DryRun();
      });
    };
    await commit().catch((e) => {
      if (!(e instanceof DryRun)) throw e;
    });
    return { accounts: created, errors: null };
  });
}

class DryRun extends Error {}

function accountRead(a: Account): Static<typeof AccountRead> {
  return {
    user: { ...a.user, uid: a.user.id, updated_at: null },
    organizations: { [a.organization.slug]: a.organization },
    workspaces: { [a.workspace.slug]: a.workspace },
    projects: { [a.project.slug]: a.project },
  };
}
