import type { FastifyInstance } from "fastify";
import { Type, type TSchema } from "typebox";
import type { AppContext } from "../context.ts";
import type { Kind, ReadContext } from "../versioning/kind.ts";
import { archiveSimple, createSimple, editSimple, getSimple, querySimple } from "../versioning/simple.ts";
import { setGuarded } from "../versioning/lifecycle.ts";
import { HttpError } from "../errors.ts";
import { FreeObject, IdParam, Nullable, Reference, Uuid, WindowingSchema } from "../schema-parts.ts";

export interface SimpleRouteOptions {
  data: TSchema;
  /** Simple environments can be guarded: a guarded environment refuses deploys and commits. */
  guard?: boolean;
  /** Fetching an unknown id answers 200 `{count: 0}` instead of 404 (the reference's answer for queries). */
  emptyWhenMissing?: boolean;
}

const Strict = { additionalProperties: false } as const;
const Labels = Type.Record(Type.String(), Type.Unknown());
const Flags = Type.Record(Type.String(), Type.Union([Type.Boolean(), Type.Null()]));

/** `/simple/{kind}s/…`: artifact, default variant and latest revision as one record. */
export function simpleRoutes(kind: Kind, opts: SimpleRouteOptions) {
  const n = kind.name;
  const P = `/simple/${kind.plural}`;
  const tags = [`Simple ${kind.plural}`];
  const fields = { name: Nullable(Type.String()), description: Nullable(Type.String()), flags: Nullable(Flags), tags: Nullable(Labels), meta: Nullable(Labels), data: Nullable(opts.data) };
  const create = Type.Object({ [n]: Type.Object({ slug: Nullable(Type.String()), message: Nullable(Type.String()), ...fields }, Strict) }, Strict);
  const edit = Type.Object({ [n]: Type.Object({ id: Nullable(Uuid), ...fields }, Strict) }, Strict);
  const query = Type.Object({
    [n]: Nullable(Type.Object({
      flags: Nullable(Flags), tags: Nullable(Labels), meta: Nullable(Labels), name: Nullable(Type.String()), slug: Nullable(Type.String()), slugs: Nullable(Type.Array(Type.String())),
    }, Strict)),
    [`${n}_refs`]: Nullable(Type.Array(Reference)),
    include_archived: Nullable(Type.Boolean()),
    windowing: Nullable(WindowingSchema),
  }, Strict);
  const one = Type.Object({ count: Type.Integer(), [n]: Type.Optional(FreeObject) }, { additionalProperties: true });
  const many = Type.Object({ count: Type.Integer(), [kind.plural]: Type.Array(FreeObject) }, { additionalProperties: true });

  return async function routes(app: FastifyInstance, ctx: AppContext) {
    const read = (scope: ReadContext["scope"]): ReadContext => ({ db: ctx.db, scope, config: ctx.config, options: {} });
    const respond = async (scope: ReadContext["scope"], id: string) => ({ count: 1, [n]: await getSimple(read(scope), kind, id) });

    app.post(`${P}/`, { schema: { tags, summary: `Create simple ${n}`, body: create, response: { 200: one } } }, async (req) => {
      const input = (req.body as any)[n];
      const id = await ctx.db.transaction((tx) => createSimple(tx, req.scope, kind, input, ctx.config));
      return respond(req.scope, id);
    });
    app.get(`${P}/:${n}_id`, {
      schema: { tags, summary: `Fetch simple ${n}`, params: IdParam(`${n}_id`), response: { 200: one } },
    }, async (req) => {
      const id = (req.params as any)[`${n}_id`];
      if (!opts.emptyWhenMissing) return respond(req.scope, id);
      return respond(req.scope, id).catch((error) => {
        if (error instanceof HttpError && error.statusCode === 404) return { count: 0 };
        throw error;
      });
    });
    app.put(`${P}/:${n}_id`, { schema: { tags, summary: `Edit simple ${n}`, params: IdParam(`${n}_id`), body: edit, response: { 200: one } } }, async (req) => {
      const id = (req.params as any)[`${n}_id`];
      await ctx.db.transaction((tx) => editSimple(tx, req.scope, kind, id, (req.body as any)[n], ctx.config));
      return respond(req.scope, id);
    });
    app.post(`${P}/query`, { schema: { tags, summary: `Query simple ${kind.plural}`, body: query, response: { 200: many } } }, async (req) => {
      const b = (req.body ?? {}) as any;
      const { items, windowing } = await querySimple(read(req.scope), kind, { filter: b[n], refs: b[`${n}_refs`], includeArchived: b.include_archived, windowing: b.windowing });
      return { count: items.length, [kind.plural]: items, windowing };
    });
    for (const archived of [true, false]) {
      const action = archived ? "archive" : "unarchive";
      app.post(`${P}/:${n}_id/${action}`, { schema: { tags, summary: `${action} simple ${n}`, params: IdParam(`${n}_id`), response: { 200: one } } }, async (req) => {
        const id = (req.params as any)[`${n}_id`];
        await archiveSimple(ctx.db, req.scope, kind, id, archived);
        return respond(req.scope, id);
      });
    }
    if (opts.guard) {
      for (const guarded of [true, false]) {
        const action = guarded ? "guard" : "unguard";
        app.post(`${P}/:${n}_id/${action}`, { schema: { tags, summary: `${action} ${n}: a guarded ${n} refuses deploys and commits`, params: IdParam(`${n}_id`), response: { 200: one } } }, async (req) => {
          const id = (req.params as any)[`${n}_id`];
          await ctx.db.transaction((tx) => setGuarded(tx, req.scope, kind, id, guarded));
          return respond(req.scope, id);
        });
      }
    }
  };
}
