import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import type { AppContext } from "../context.ts";
import { diffRevisions, revertTo } from "../versioning/history.ts";
import type { Kind } from "../versioning/kind.ts";
import { revisionRecord } from "../versioning/records.ts";
import { retrieveRevision } from "../versioning/resolve.ts";
import { findVariant } from "../versioning/variants.ts";
import { badRequest } from "./errors.ts";
import { Nullable, Reference } from "./kind-schemas.ts";

/** Revision diff and revert for one kind: `/{kind}s/revisions/diff` and `/{kind}s/revisions/revert`. */
export function historyRoutes(kind: Kind) {
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

  return async function routes(app: FastifyInstance, ctx: AppContext) {
    const side = async (scope: { projectId: string; userId: string | null }, ref: Record<string, any>) => {
      const { [`${n}_variant_ref`]: variant, ...revision } = ref;
      return (await retrieveRevision(ctx.db, scope, kind, { revision, variant })).revision;
    };
    app.post(`${P}/diff`, { schema: { tags, summary: `Diff two ${n} revisions`, body: DiffBody } }, async (req) => {
      const b = req.body as Record<string, any>;
      const [base, target] = await Promise.all([side(req.scope, b.base), side(req.scope, b.target)]);
      const read = { db: ctx.db, scope: req.scope, config: ctx.config, options: {} };
      return { count: 1, diff: await diffRevisions(read, kind, base, target) };
    });
    app.post(`${P}/revert`, { schema: { tags, summary: `Commit a new ${n} revision equal to an older one`, body: RevertBody } }, async (req) => {
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
