import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import type { AppContext } from "../context.ts";
import { forkVariant } from "../versioning/fork.ts";
import type { Kind } from "../versioning/kind.ts";
import { variantRecord } from "../versioning/records.ts";
import { badRequest } from "../errors.ts";
import { FreeObject, Nullable, Reference } from "../schema-parts.ts";
import { VariantRecordSchema } from "../versioning/record-schemas.ts";
import { documentationOnly } from "./openapi.ts";

const Forked = Type.Object({ count: Type.Integer(), variant: VariantRecordSchema }, {
  additionalProperties: true, description: "The new variant, also under `{kind}_variant`",
});

/**
 * The seed's kind-neutral `POST /variants/fork`: the same body as `/{kind}s/variants/fork` with either
 * kind-named keys (`application_variant_ref`) or generic ones (`variant_ref`, `revision_ref`, `variant`).
 */
export function forkRoutes(kinds: Kind[]) {
  return async function routes(app: FastifyInstance, ctx: AppContext) {
    app.post("/variants/fork", {
      schema: {
        tags: ["Variants"],
        summary: "Fork a variant of any kind from an existing revision",
        body: Type.Object({ variant: Nullable(FreeObject), variant_ref: Nullable(Reference), revision_ref: Nullable(Reference) }, { additionalProperties: true }),
      },
      config: documentationOnly({ response: { 200: Forked } }),
    }, async (req) => {
      const b = req.body as Record<string, any>;
      const named = kinds.find((k) => [`${k.name}_variant_ref`, `${k.name}_revision_ref`, `${k.name}_variant`].some((key) => b[key] != null));
      const kind = named ?? (await kindOfSource(ctx, req.scope.projectId, kinds, b.variant_ref, b.revision_ref));
      const n = kind.name;
      const allowed = new Set([`${n}_variant_ref`, `${n}_revision_ref`, `${n}_variant`, "variant_ref", "revision_ref", "variant"]);
      const extra = Object.keys(b).find((key) => !allowed.has(key));
      if (extra) throw badRequest(`Unexpected field ${extra} in a ${n} fork`);
      const source = { variant: b[`${n}_variant_ref`] ?? b.variant_ref, revision: b[`${n}_revision_ref`] ?? b.revision_ref };
      if (!source.variant && !source.revision) throw badRequest("Give variant_ref or revision_ref to fork from");
      const row = await ctx.db.transaction((tx) => forkVariant(tx, req.scope, kind, source, b[`${n}_variant`] ?? b.variant ?? {}));
      const record = variantRecord(kind, row);
      return { count: 1, variant: record, [`${n}_variant`]: record };
    });
  };
}

/** Which kind a generic reference's variant (or revision) belongs to. */
async function kindOfSource(ctx: AppContext, projectId: string, kinds: Kind[], variantRef?: { id?: string; slug?: string }, revisionRef?: { id?: string; slug?: string }) {
  const [table, ref] = variantRef?.id || variantRef?.slug ? ["variants", variantRef] : ["revisions", revisionRef];
  if (!ref?.id && !ref?.slug) throw badRequest("Give variant_ref or revision_ref (with an id or slug) to fork from");
  const rows = await ctx.db.query<{ kind: string; flags: Record<string, unknown> }>(
    `SELECT kind, flags FROM ${table} WHERE project_id = $1 AND ${ref.id ? "id = $2::uuid" : "slug = $2"}`,
    [projectId, ref.id ?? ref.slug],
  );
  if (rows.length === 0) throw badRequest(`No variant or revision ${ref.id ?? ref.slug} to fork from`);
  if (rows.length > 1) throw badRequest(`Slug ${ref.slug} names entities of several kinds; use an id`);
  const { kind, flags } = rows[0];
  // The most specific kind first: an application is also a workflow.
  const match = kinds.find((k) => k.family === kind && Object.keys(k.flags).length > 0 && Object.entries(k.flags).every(([f, v]) => flags[f] === v))
    ?? kinds.find((k) => k.family === kind && Object.keys(k.flags).length === 0);
  if (!match) throw badRequest(`No variant or revision ${ref.id ?? ref.slug} to fork from`);
  return match;
}
