import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import type { AppContext } from "../context.ts";
import { resolveEmbeds } from "../versioning/embeds.ts";
import { diffRevisions, revertTo } from "../versioning/history.ts";
import type { Kind } from "../versioning/kind.ts";
import { revisionRecord } from "../versioning/records.ts";
import { retrieveRevision } from "../versioning/resolve.ts";
import { findVariant } from "../versioning/variants.ts";
import { badRequest } from "../errors.ts";
import { FreeObject, Nullable, Reference } from "../schema-parts.ts";
import { countedOne, RevisionRecordSchema } from "../versioning/record-schemas.ts";
import { documentationOnly } from "./openapi.ts";

/**
 * Revision diff, revert and embed resolution for one kind: `/{kind}s/revisions/diff|revert|resolve`. Resolve finds
 * the revision as `fetchAs` (applications and evaluators resolve any workflow revision, as the reference's do).
 */
export function historyRoutes(kind: Kind, all: Kind[], fetchAs: Kind = kind) {
  const n = kind.name;
  const P = `/${kind.plural}/revisions`;
  const tags = [kind.plural[0].toUpperCase() + kind.plural.slice(1)];
  const Side = Type.Object({ ...Reference.properties, [`${n}_variant_ref`]: Nullable(Reference) }, { additionalProperties: false });
  const DiffBody = Type.Object({ base: Side, target: Side }, { additionalProperties: false });
  const RevertBody = Type.Object({
    [`${n}_revision_ref`]: Nullable(Reference),
    revision_ref: Nullable(Reference),
    [`${n}_variant_ref`]: Nullable(Reference),
    message: Nullable(Type.String()),
  }, { additionalProperties: false });

  const ResolveBody = Type.Object({
    [`${n}_ref`]: Nullable(Reference),
    [`${n}_variant_ref`]: Nullable(Reference),
    [`${n}_revision_ref`]: Nullable(Reference),
    [`${n}_revision`]: Nullable(Type.Object({ data: Nullable(Type.Object({}, { additionalProperties: true })) }, { additionalProperties: true })),
    max_depth: Nullable(Type.Integer({ minimum: 0, maximum: 100 })),
    max_embeds: Nullable(Type.Integer({ minimum: 0, maximum: 10_000 })),
    error_policy: Nullable(Type.String({ enum: ["exception", "placeholder", "keep"] })),
  }, { additionalProperties: false });

  const RevisionAnswer = countedOne(`${n}_revision`, RevisionRecordSchema);
  // The stored revision's record, or the revision sent inline (any fields), with its data resolved.
  const ResolvedRevision = Type.Object({ data: Type.Optional(Type.Unknown()) }, { additionalProperties: true });
  const Resolved = Type.Object({ count: Type.Integer(), [`${n}_revision`]: ResolvedRevision, resolution_info: FreeObject }, { additionalProperties: true });
  const Diff = Type.Object({ count: Type.Integer(), diff: FreeObject }, { additionalProperties: true });

  return async function routes(app: FastifyInstance, ctx: AppContext) {
    app.post(`${P}/resolve`, { schema: { tags, summary: `Fetch a ${n} revision with embedded references inlined`, body: ResolveBody }, config: documentationOnly({ response: { 200: Resolved } }) }, async (req) => {
      const b = req.body as Record<string, any>;
      const limits = { maxDepth: b.max_depth ?? 10, maxEmbeds: b.max_embeds ?? 100, errorPolicy: b.error_policy ?? "exception" };
      const read = { db: ctx.db, scope: req.scope, config: ctx.config, options: {} };
      if (b[`${n}_revision`]) {
        const { data, info } = await resolveEmbeds(ctx.db, req.scope, all, b[`${n}_revision`].data ?? null, limits);
        return { count: 1, [`${n}_revision`]: { ...b[`${n}_revision`], data }, resolution_info: info };
      }
      const refs = { artifact: b[`${n}_ref`], variant: b[`${n}_variant_ref`], revision: b[`${n}_revision_ref`] };
      const { revision } = await retrieveRevision(ctx.db, req.scope, fetchAs, refs);
      const { data, info } = await resolveEmbeds(ctx.db, req.scope, all, (kind.present ? await kind.present(revision, read) : revision.data) as never, limits);
      return { count: 1, [`${n}_revision`]: revisionRecord(kind, revision, data), resolution_info: info };
    });

    const side = async (scope: { projectId: string; userId: string | null }, ref: Record<string, any>) => {
      const { [`${n}_variant_ref`]: variant, ...revision } = ref;
      return (await retrieveRevision(ctx.db, scope, kind, { revision, variant })).revision;
    };
    app.post(`${P}/diff`, { schema: { tags, summary: `Diff two ${n} revisions`, body: DiffBody }, config: documentationOnly({ response: { 200: Diff } }) }, async (req) => {
      const b = req.body as Record<string, any>;
      const [base, target] = await Promise.all([side(req.scope, b.base), side(req.scope, b.target)]);
      const read = { db: ctx.db, scope: req.scope, config: ctx.config, options: {} };
      return { count: 1, diff: await diffRevisions(read, kind, base, target) };
    });
    app.post(`${P}/revert`, { schema: { tags, summary: `Commit a new ${n} revision equal to an older one`, body: RevertBody }, config: documentationOnly({ response: { 200: RevisionAnswer } }) }, async (req) => {
      const b = req.body as Record<string, any>;
      const ref = b[`${n}_revision_ref`] ?? b.revision_ref;
      if (!ref) throw badRequest(`Give ${n}_revision_ref: the revision whose data the new revision takes`);
      const row = await ctx.db.transaction(async (tx) => {
        const source = (await retrieveRevision(tx, req.scope, kind, { revision: ref, variant: b[`${n}_variant_ref`] })).revision;
        const variantId = b[`${n}_variant_ref`] ? (await findVariant(tx, req.scope, kind, b[`${n}_variant_ref`])).id : source.variant_id;
        return revertTo(tx, req.scope, kind, source, variantId, b.message);
      });
      const read = { db: ctx.db, scope: req.scope, config: ctx.config, options: {} };
      return { count: 1, [`${n}_revision`]: revisionRecord(kind, row, kind.present ? await kind.present(row, read) : row.data) };
    });
  };
}
