import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type, type TSchema } from "typebox";
import { cachedAnswer, matchesTag, peekRetrieve, retrievedTag, revisionTag } from "../cache/cached-retrieve.ts";
import { Lru } from "../cache/lru.ts";
import type { AppContext } from "../context.ts";
import { createArtifact, findArtifact, queryArtifacts } from "../versioning/artifacts.ts";
import { commitRevision } from "../versioning/commit.ts";
import { deploy } from "../versioning/deploy.ts";
import type { Reference } from "../versioning/filters.ts";
import { forkVariant } from "../versioning/fork.ts";
import type { Kind, ReadContext } from "../versioning/kind.ts";
import { editMetadata, setArchived, type Level } from "../versioning/lifecycle.ts";
import { artifactRecord, revisionRecord, variantRecord } from "../versioning/records.ts";
import { resolveEmbeds, type ResolveLimits } from "../versioning/embeds.ts";
import type { Json } from "../versioning/json-path.ts";
import type { RetrieveRefs } from "../versioning/resolve.ts";
import type { RetrieveAnswer } from "../versioning/retrieve.ts";
import { findRevision, logRevisions, queryRevisions } from "../versioning/revisions.ts";
import type { RevisionRow } from "../versioning/rows.ts";
import { createVariant, defaultVariant, findVariant, queryVariants } from "../versioning/variants.ts";
import { badRequest } from "../errors.ts";
import { IdParam, IfMatchHeaders } from "../schema-parts.ts";
import { kindSchemas } from "./kind-schemas.ts";
import { JSON_UTF8 } from "./front-door.ts";
import { IGNORED_FIELDS_HEADER } from "./ignored-fields.ts";
import { documentationOnly } from "./openapi.ts";
import { prepareAnswer, preparedAnswer } from "./prepared-answer.ts";

// Revisions never change: an If-None-Match naming the current tag is answered 304 without a body.
const NOT_MODIFIED = documentationOnly({ response: { 304: { type: "null", description: "Not modified: the ETag sent in If-None-Match is current" } } });

export interface KindRouteOptions {
  /** Schema of revision `data` in commits. */
  data: TSchema;
  /** Schema of a commit `delta`, or null when the kind takes none. */
  delta: TSchema | null;
  /** Extra retrieve/GET fields that shape what a read returns (e.g. include_testcases). */
  readOptions?: Record<string, TSchema>;
  /** Whether revisions of this kind can be deployed to environments. */
  deployable?: boolean;
  /** Read options a commit's answer uses unless the commit body sets them (e.g. no testcases inlined). */
  commitReadDefaults?: Record<string, unknown>;
  /** The kinds an `@ag.embed` in this kind's data may name (`resolve: true` on retrieve). */
  embedKinds?: Kind[];
}

type Body = Record<string, any>;

/** Retrieve answers up to this size are kept serialised (large testset revisions are not). */
const MAX_CACHED_BODY = 256 * 1024;
/** `resolve: true` on retrieve uses `/revisions/resolve`'s default limits and policy. */
const RETRIEVE_LIMITS: ResolveLimits = { maxDepth: 10, maxEmbeds: 100, errorPolicy: "exception" };

/** The one id a path names (`:application_id`, `:application_variant_id`, …). */
const pathId = (req: FastifyRequest): string => Object.values(req.params as Record<string, string>)[0];
/** The revision id an `If-Match` header names (its schema admits a quoted or bare id, or `*` for any). */
const expectedLatest = (req: FastifyRequest): string | null => {
  const tag = req.headers["if-match"];
  return typeof tag === "string" && tag !== "*" ? tag.replace(/^W\//, "").replaceAll('"', "").toLowerCase() : null;
};

/** The first of `{name}_{suffix}`, `{alias}_{suffix}` or the generic field that the body sets. */
export function aliased(kind: Kind, body: Body | null | undefined, suffix: string, generic: string): any {
  if (!body) return undefined;
  for (const p of [kind.name, ...kind.aliases]) if (body[`${p}_${suffix}`] != null) return body[`${p}_${suffix}`];
  return body[generic] ?? undefined;
}

/**
 * Every route of the versioning engine for one kind: artifacts, variants, revisions (commit, log,
 * retrieve, query), fork and, where the kind can be deployed, deploy.
 */
export function kindRoutes(kind: Kind, opts: KindRouteOptions) {
  const n = kind.name;
  const P = `/${kind.plural}`;
  const s = kindSchemas(kind, opts.data, opts.delta, opts.readOptions);
  const tags = [kind.plural[0].toUpperCase() + kind.plural.slice(1)];
  const retrieveBody = Type.Object({ ...s.retrieveRefs, resolve: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])), ...opts.readOptions }, { additionalProperties: false });
  const readOptionKeys = Object.keys(opts.readOptions ?? {});

  return async function routes(app: FastifyInstance, ctx: AppContext) {
    const bodies = new Lru<string, string>(10_000);
    const read = (req: FastifyRequest, options: Record<string, unknown> = {}): ReadContext => ({ db: ctx.db, scope: req.scope, config: ctx.config, options });
    const present = async (rev: RevisionRow, rc: ReadContext) => revisionRecord(kind, rev, kind.present ? await kind.present(rev, rc) : rev.data);
    const one = (key: string, record: unknown) => ({ count: record ? 1 : 0, [key]: record });
    const optionsOf = (body: Body | undefined) => Object.fromEntries(readOptionKeys.map((k) => [k, body?.[k]]));
    const schema = (summary: string, extra: object = {}) => ({ tags, summary, ...extra });

    // ---- artifacts
    app.post(`${P}/`, { schema: schema(`Create ${n}`, { body: s.artifactCreate, response: { 200: s.one(n) } }) }, async (req) => {
      const row = await ctx.db.transaction((tx) => createArtifact(tx, req.scope, kind, (req.body as Body)[n]));
      return one(n, artifactRecord(kind, row));
    });
    app.get(`${P}/:${n}_id`, { schema: schema(`Fetch ${n}`, { params: IdParam(`${n}_id`), response: { 200: s.one(n) } }) }, async (req) =>
      one(n, artifactRecord(kind, await findArtifact(ctx.db, req.scope, kind, { id: pathId(req) }))));
    app.put(`${P}/:${n}_id`, { schema: schema(`Edit ${n}`, { params: IdParam(`${n}_id`), body: s.artifactEdit, response: { 200: s.one(n) } }) }, async (req) => {
      const id = pathId(req);
      await editMetadata(ctx.db, req.scope, kind, "artifact", id, (req.body as Body)[n]);
      return one(n, artifactRecord(kind, await findArtifact(ctx.db, req.scope, kind, { id })));
    });
    app.post(`${P}/query`, { schema: schema(`Query ${kind.plural}`, { body: s.artifactQuery, response: { 200: s.many(kind.plural) } }) }, async (req) => {
      const b = (req.body ?? {}) as Body;
      const { items, windowing } = await queryArtifacts(ctx.db, req.scope, kind, { filter: b[n], refs: b[`${n}_refs`], includeArchived: b.include_archived, windowing: b.windowing });
      return { count: items.length, [kind.plural]: items.map((r) => artifactRecord(kind, r)), windowing };
    });

    // ---- variants
    app.post(`${P}/variants/`, { schema: schema(`Create ${n} variant`, { body: s.variantCreate, response: { 200: s.one(`${n}_variant`) } }) }, async (req) => {
      const input = (req.body as Body)[`${n}_variant`];
      const artifactId = aliased(kind, input, "id", "artifact_id");
      if (!artifactId) throw badRequest(`${n}_variant.${n}_id is required`);
      const row = await ctx.db.transaction((tx) => createVariant(tx, req.scope, kind, { id: artifactId }, input));
      return one(`${n}_variant`, variantRecord(kind, row));
    });
    app.get(`${P}/variants/:${n}_variant_id`, { schema: schema(`Fetch ${n} variant`, { params: IdParam(`${n}_variant_id`), response: { 200: s.one(`${n}_variant`) } }) }, async (req) =>
      one(`${n}_variant`, variantRecord(kind, await findVariant(ctx.db, req.scope, kind, { id: pathId(req) }))));
    app.put(`${P}/variants/:${n}_variant_id`, { schema: schema(`Edit ${n} variant`, { params: IdParam(`${n}_variant_id`), body: s.variantEdit, response: { 200: s.one(`${n}_variant`) } }) }, async (req) => {
      const id = pathId(req);
      await editMetadata(ctx.db, req.scope, kind, "variant", id, (req.body as Body)[`${n}_variant`]);
      return one(`${n}_variant`, variantRecord(kind, await findVariant(ctx.db, req.scope, kind, { id })));
    });
    app.post(`${P}/variants/query`, { schema: schema(`Query ${n} variants`, { body: s.variantQuery, response: { 200: s.many(`${n}_variants`) } }) }, async (req) => {
      const b = (req.body ?? {}) as Body;
      const { items, windowing } = await queryVariants(ctx.db, req.scope, kind, {
        filter: b[`${n}_variant`], artifactRefs: b[`${n}_refs`], refs: b[`${n}_variant_refs`], includeArchived: b.include_archived, windowing: b.windowing,
      });
      return { count: items.length, [`${n}_variants`]: items.map((r) => variantRecord(kind, r)), windowing };
    });
    app.post(`${P}/variants/fork`, { schema: schema(`Fork a ${n} variant: copy its lineage up to a revision`, { body: s.variantFork, response: { 200: s.one(`${n}_variant`) } }) }, async (req) => {
      const b = req.body as Body;
      const source = { variant: b[`${n}_variant_ref`] as Reference, revision: b[`${n}_revision_ref`] as Reference | null };
      const row = await ctx.db.transaction((tx) => forkVariant(tx, req.scope, kind, source, b[`${n}_variant`]));
      return one(`${n}_variant`, variantRecord(kind, row));
    });

    // ---- revisions
    const commitBody = async (req: FastifyRequest, c: Body, options: Record<string, unknown>) => {
      let variantId = aliased(kind, c, "variant_id", "variant_id");
      const artifactId = aliased(kind, c, "id", "artifact_id");
      if (!variantId && artifactId) variantId = (await defaultVariant(ctx.db, req.scope, kind, artifactId)).id;
      if (!variantId) throw badRequest(`${n}_variant_id is required`);
      const row = await ctx.db.transaction((tx) => commitRevision(tx, req.scope, kind, {
        variantId, artifactId, baseRevisionId: c.base_revision_id ?? aliased(kind, c, "revision_id", "revision_id"),
        slug: c.slug, name: c.name, description: c.description, message: c.message, flags: c.flags, tags: c.tags, meta: c.meta,
        data: c.data, delta: c.delta, config: ctx.config, expectedLatestId: expectedLatest(req),
      }));
      return one(`${n}_revision`, await present(row, read(req, options)));
    };
    // A commit answers with its revision; large payloads (a testset's rows) only when asked for.
    const commitOptions = (b: Body) => Object.fromEntries(readOptionKeys.map((k) => [k, b[k] ?? opts.commitReadDefaults?.[k]]));
    app.post(`${P}/revisions/`, {
      schema: schema(`Create ${n} revision`, {
        headers: IfMatchHeaders, body: s.revisionCreate, response: { 200: s.one(`${n}_revision`) },
      }),
    }, async (req) =>
      commitBody(req, (req.body as Body)[`${n}_revision`], commitOptions({})));
    app.post(`${P}/revisions/commit`, {
      schema: schema(`Commit ${n} revision`, {
        headers: IfMatchHeaders, body: s.commit, response: { 200: s.one(`${n}_revision`) },
      }),
    }, async (req) => {
      const b = req.body as Body;
      const c = b[`${n}_revision_commit`] ?? b[`${n}_revision`];
      if (!c) throw badRequest(`Body must hold ${n}_revision_commit (or ${n}_revision)`);
      return commitBody(req, c, commitOptions(b));
    });
    app.get(`${P}/revisions/:${n}_revision_id`, {
      schema: schema(`Fetch ${n} revision`, { params: IdParam(`${n}_revision_id`), querystring: Type.Object(opts.readOptions ?? {}), response: { 200: s.one(`${n}_revision`) } }),
      config: NOT_MODIFIED,
    }, async (req, reply) => {
      const rev = await findRevision(ctx.db, req.scope, kind, { id: pathId(req) });
      const options = optionsOf(req.query as Body);
      // The tag covers what a metadata edit or an archive can change; the data itself never changes.
      const tag = revisionTag(rev.id, String(new Date(rev.updated_at ?? rev.created_at).getTime()), options);
      reply.header("etag", tag);
      if (matchesTag(req.headers["if-none-match"], tag)) return reply.code(304).send();
      return one(`${n}_revision`, await present(rev, read(req, options)));
    });
    app.put(`${P}/revisions/:${n}_revision_id`, { schema: schema(`Edit ${n} revision metadata`, { params: IdParam(`${n}_revision_id`), body: s.revisionEdit, response: { 200: s.one(`${n}_revision`) } }) }, async (req) => {
      const id = pathId(req);
      await editMetadata(ctx.db, req.scope, kind, "revision", id, (req.body as Body)[`${n}_revision`]);
      return one(`${n}_revision`, await present(await findRevision(ctx.db, req.scope, kind, { id }), read(req)));
    });
    app.post(`${P}/revisions/query`, { schema: schema(`Query ${n} revisions`, { body: s.revisionQuery, response: { 200: s.many(`${n}_revisions`) } }) }, async (req) => {
      const b = (req.body ?? {}) as Body;
      const { items, windowing } = await queryRevisions(ctx.db, req.scope, kind, {
        filter: b[`${n}_revision`], artifactRefs: b[`${n}_refs`], variantRefs: b[`${n}_variant_refs`], refs: b[`${n}_revision_refs`],
        includeArchived: b.include_archived, windowing: b.windowing,
      });
      return { count: items.length, [`${n}_revisions`]: items.map((r) => revisionRecord(kind, r)), windowing };
    });
    app.post(`${P}/revisions/log`, { schema: schema(`Log of a ${n} variant, newest first`, { body: s.log, response: { 200: s.many(`${n}_revisions`) } }) }, async (req) => {
      const b = req.body as Body;
      const q = b[n] ?? b[`${n}_revisions`] ?? b[`${n}_revision`];
      if (!q) throw badRequest(`Body must hold ${n} (or ${n}_revisions) with a ${n}_variant_id, ${n}_revision_id or ${n}_id`);
      const revisionId = aliased(kind, q, "revision_id", "revision_id");
      let variantId = aliased(kind, q, "variant_id", "variant_id");
      let upTo: number | null = null;
      if (revisionId) {
        const rev = await findRevision(ctx.db, req.scope, kind, { id: revisionId });
        variantId = rev.variant_id;
        upTo = rev.version;
      } else if (variantId) {
        await findVariant(ctx.db, req.scope, kind, { id: variantId });
      } else {
        const artifactId = aliased(kind, q, "id", "artifact_id");
        if (!artifactId) throw badRequest(`Give a ${n}_variant_id, ${n}_revision_id or ${n}_id`);
        variantId = (await defaultVariant(ctx.db, req.scope, kind, (await findArtifact(ctx.db, req.scope, kind, { id: artifactId })).id)).id;
      }
      const rows = await logRevisions(ctx.db, req.scope, variantId, upTo, q.depth ?? null);
      return { count: rows.length, [`${n}_revisions`]: rows.map((r) => revisionRecord(kind, r)) };
    });
    // On environments, environment_ref names the artifact itself, not an environment to look inside.
    const refsOf = (b: Body): RetrieveRefs => kind.family === "environment"
      ? { artifact: b[`${n}_ref`], variant: b[`${n}_variant_ref`], revision: b[`${n}_revision_ref`] }
      : {
        artifact: b[`${n}_ref`], variant: b[`${n}_variant_ref`], revision: b[`${n}_revision_ref`],
        environment: b.environment_ref, environmentVariant: b.environment_variant_ref, environmentRevision: b.environment_revision_ref,
        key: b.key,
      };
    const retrieved = async (req: FastifyRequest, r: RetrieveAnswer, options: Record<string, unknown>, resolve = false) => {
      if (!r.revision) return { count: 0, [`${n}_revision`]: null };
      const record = await present(r.revision, read(req, options));
      const resolved = resolve ? await resolveEmbeds(ctx.db, req.scope, opts.embedKinds ?? [kind], record.data as Json, RETRIEVE_LIMITS) : null;
      return {
        count: 1,
        [`${n}_revision`]: resolved ? { ...record, data: resolved.data } : record,
        ...(resolved ? { resolution_info: resolved.info } : {}),
        ...(r.retrievalInfo ? { retrieval_info: r.retrievalInfo } : {}),
      };
    };
    const prepare = (req: FastifyRequest, reply: FastifyReply, r: RetrieveAnswer, tag: string, body: string) => {
      if (req.bodyText === null) return;
      const ignored = reply.getHeader(IGNORED_FIELDS_HEADER);
      const ignoredText = ignored === undefined ? undefined : String(ignored);
      prepareAnswer(r, { bodyText: req.bodyText, tag, body, ignored: ignoredText });
    };
    const answerRetrieve = (req: FastifyRequest, reply: FastifyReply, b: Body, r: RetrieveAnswer): FastifyReply | Promise<FastifyReply> => {
      const ready = req.bodyText === null ? undefined : preparedAnswer(r, req.bodyText);
      if (ready !== undefined) {
        reply.header("etag", ready.tag);
        if (matchesTag(req.headers["if-none-match"], ready.tag)) return reply.code(304).send();
        return reply.type(JSON_UTF8).send(ready.body);
      }
      const options = optionsOf(b);
      const resolve = b.resolve === true;
      const tag = retrievedTag(r, resolve ? { ...options, resolve } : options);
      if (tag === null) return retrieved(req, r, options).then((value) => reply.type(JSON_UTF8).send(JSON.stringify(value)));
      reply.header("etag", tag);
      const unchanged = matchesTag(req.headers["if-none-match"], tag);
      // Embedded revisions can change without this one changing: a resolved answer is worked out each time.
      if (resolve) {
        if (unchanged) return reply.code(304).send();
        return retrieved(req, r, options, true).then((value) => reply.type(JSON_UTF8).send(JSON.stringify(value)));
      }
      // The tag names everything the body holds, so the serialised body can be kept under it. A 304 prepares the
      // answer too: a client that only revalidates is answered at the front door once the resolution is read again.
      const send = (body: string) => (unchanged ? reply.code(304).send() : reply.type(JSON_UTF8).send(body));
      const key = `${req.scope.projectId}\u0000${tag}`;
      const body = bodies.get(key);
      if (body !== undefined) {
        prepare(req, reply, r, tag, body);
        return send(body);
      }
      return retrieved(req, r, options).then((value) => {
        const text = JSON.stringify(value);
        if (text.length <= MAX_CACHED_BODY) {
          bodies.set(key, text);
          prepare(req, reply, r, tag, text);
        }
        return send(text);
      });
    };
    // A configuration answered before is answered again at the front door (a testset's may need compressing).
    if (kind.family !== "testset") {
      ctx.frontDoor?.route(`${app.prefix}${P}/revisions/retrieve`, (scope, bodyText) => {
        const hit = peekRetrieve(ctx, scope, kind, bodyText);
        return hit && preparedAnswer(hit, bodyText);
      });
    }
    // Configuration answers are a few KB: compressing them costs more than it saves (testsets keep it).
    // Not async: a cached resolution is answered without a promise (the hot path of every client).
    app.post(`${P}/revisions/retrieve`, {
      compress: kind.family === "testset" ? undefined : false,
      schema: schema(`Retrieve one ${n} revision by reference`, { body: retrieveBody, response: { 200: s.one(`${n}_revision`) } }),
      config: NOT_MODIFIED,
    }, (req, reply) => {
      const b = (req.body ?? {}) as Body;
      const hit = req.bodyText === null ? undefined : peekRetrieve(ctx, req.scope, kind, req.bodyText);
      const sent = hit
        ? answerRetrieve(req, reply, b, hit)
        : cachedAnswer(ctx, req.scope, kind, refsOf(b), req.bodyText).then((r) => answerRetrieve(req, reply, b, r));
      return sent === reply ? undefined : sent;
    });
    if (opts.deployable) {
      app.post(`${P}/revisions/deploy`, {
        schema: schema(`Deploy a ${n} revision to an environment`, {
          headers: IfMatchHeaders, body: s.deploy, response: { 200: s.one(`${n}_revision`) },
        }),
      }, async (req) => {
        const b = req.body as Body;
        if (!b.environment_ref && !b.environment_variant_ref) throw badRequest("environment_ref is required");
        const expected = expectedLatest(req);
        const deployed = await ctx.db.transaction((tx) => deploy(tx, req.scope, kind, refsOf(b), b.message, expected));
        return retrieved(req, deployed, {});
      });
    }

    // ---- archive / unarchive at every level
    const levels: [Level, string, string, (req: FastifyRequest, id: string) => Promise<unknown>][] = [
      ["artifact", P, n, async (req, id) => artifactRecord(kind, await findArtifact(ctx.db, req.scope, kind, { id }))],
      ["variant", `${P}/variants`, `${n}_variant`, async (req, id) => variantRecord(kind, await findVariant(ctx.db, req.scope, kind, { id }))],
      ["revision", `${P}/revisions`, `${n}_revision`, async (req, id) => present(await findRevision(ctx.db, req.scope, kind, { id }), read(req))],
    ];
    for (const [level, base, key, fetch] of levels) {
      for (const archived of [true, false]) {
        const action = archived ? "archive" : "unarchive";
        app.post(`${base}/:${key}_id/${action}`, { schema: schema(`${action[0].toUpperCase()}${action.slice(1)} ${key.replace(/_/g, " ")}`, { params: IdParam(`${key}_id`), response: { 200: s.one(key) } }) }, async (req) => {
          const id = pathId(req);
          await setArchived(ctx.db, req.scope, kind, level, id, archived);
          return one(key, await fetch(req, id));
        });
      }
    }
  };
}
