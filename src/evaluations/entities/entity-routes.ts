import type { FastifyInstance, HTTPMethods } from "fastify";
import type { TSchema } from "typebox";
import type { Scope } from "../../accounts/scope.ts";
import type { AppContext } from "../../context.ts";
import type { Database, Queryable } from "../../db/database.ts";
import { documentationOnly } from "../../http/openapi.ts";
import { IdParam } from "../../schema-parts.ts";
import type { Windowing } from "../../versioning/windowing.ts";
import { editWithoutId } from "../errors.ts";
import { idOf, idsOf, manyOf, oneOf } from "./record-schemas.ts";
import { type EntityTable, fetchRows, queryRows, type Row } from "./entity-table.ts";

/** The answer of a route that names one row: `{count, <name>}`, the row null when it is not the caller's. */
export const one = (name: string, row: Row | null | undefined) => ({ count: row ? 1 : 0, [name]: row ?? null });

/** The answer of a route that returns rows: `{count, <name>}`, with the next window when it was a query. */
export const many = (name: string, rows: Row[], windowing?: Windowing | null) => ({
  count: rows.length, [name]: rows, ...(windowing === undefined ? {} : { windowing }),
});

const tags = ["Evaluations"];

/** A route's OpenAPI description, with the schema of its answer. */
type Parts = { body?: TSchema; params?: TSchema; querystring?: TSchema };
export const doc = <P extends Parts>(summary: string, answer: TSchema, parts: P) => ({
  schema: { tags, summary, ...parts },
  config: documentationOnly({ response: { 200: answer } }),
});

/**
 * A body's field by its wire name. The names of an entity are values, so its bodies' static types cannot name their
 * fields; the route's schema (EntityRouteSpec.bodies) has validated the field before a handler reads it.
 */
const field = <T>(body: unknown, name: string): T => (body as Record<string, T>)[name]!;

type Edit = (tx: Queryable, scope: Scope, id: string, edit: Row) => Promise<Row | null>;

/** What the routes of one entity need besides its table: its wire names, schemas and engine functions. */
export interface EntityRouteSpec {
  table: EntityTable;
  /** The collection's path, without a trailing slash (`/evaluations/runs`). */
  path: string;
  /** A row's wire name: the body key of one row (`run`), and the stem of `run_id` and `run_ids`. */
  one: string;
  /** The rows' wire name (`runs`): the body key of a list, and of an answer's rows. */
  many: string;
  /** One row in a summary ("a run"). */
  aRow: string;
  record: TSchema;
  bodies: { create: TSchema; edits?: TSchema; edit?: TSchema; ids: TSchema; query: TSchema };
  /** Writes the rows of a create (or a set, with its own summary and methods) in the request's transaction. */
  create: {
    write(tx: Queryable, scope: Scope, items: Row[]): Promise<Row[]>;
    summary?: string;
    methods?: HTTPMethods[];
  };
  /** Edits one row by id; without it the entity has no edit routes. */
  edit?: Edit;
  /** Deletes rows by id and returns the ids it deleted. */
  remove(db: Database, scope: Scope, ids: string[]): Promise<string[]>;
  /** Shapes the rows of a query page before they are answered, given the query's filter. */
  shapeQuery?: (rows: Row[], filter: Row | null | undefined) => Row[];
  /** A fetch by id answers a list and a deletion by id the list of ids, as the reference does for metrics. */
  byIdAsList?: boolean;
  /** The entity's further routes on its collection, registered after its query. */
  collection?: (app: FastifyInstance, ctx: AppContext) => void;
  /** The entity's further routes on one row, registered after the fetch, edit and delete of one. */
  member?: (app: FastifyInstance, ctx: AppContext) => void;
}

/** Applies edits that each name their row by id, in one transaction; rows that are not the caller's are left out. */
async function editEach(tx: Queryable, scope: Scope, noun: string, edits: Row[], edit: Edit): Promise<Row[]> {
  const out: Row[] = [];
  for (const e of edits) {
    if (!e.id) throw editWithoutId(noun);
    const row = await edit(tx, scope, e.id as string, e);
    if (row) out.push(row);
  }
  return out;
}

/**
 * Every route of one evaluation entity, in the reference's shapes: create (or set) in batches, edit, delete by ids,
 * query with a filter and windowing, and fetch, edit and delete of one row by id. An id that is not the caller's
 * reads as `count: 0`.
 */
export function entityRoutes(spec: EntityRouteSpec) {
  const { path, one: name, many: plural, record, bodies } = spec;
  const idParam = `${name}_id`;
  const idsKey = `${name}_ids`;
  const params = IdParam(idParam);
  const rows = manyOf(plural, record);
  const plainSummary = (verb: string) => `${verb} ${plural}`;

  return (app: FastifyInstance, ctx: AppContext) => {
    const { db } = ctx;
    const created = doc(spec.create.summary ?? plainSummary("Create"), rows, { body: bodies.create });
    app.route({
      method: spec.create.methods ?? "POST",
      url: `${path}/`,
      ...created,
      handler: async (req) => {
        const items = field<Row[]>(req.body, plural);
        return many(plural, await db.transaction((tx) => spec.create.write(tx, req.scope, items)));
      },
    });
    const { edit } = spec;
    if (edit) {
      app.patch(`${path}/`, doc(plainSummary("Edit"), rows, { body: bodies.edits }), async (req) => {
        const edits = field<Row[]>(req.body, plural);
        return many(plural, await db.transaction((tx) => editEach(tx, req.scope, name, edits, edit)));
      });
    }
    app.delete(`${path}/`, doc(plainSummary("Delete"), idsOf(idsKey), { body: bodies.ids }), async (req) => {
      const ids = await spec.remove(db, req.scope, field<string[]>(req.body, idsKey));
      return { count: ids.length, [idsKey]: ids };
    });
    app.post(`${path}/query`, doc(plainSummary("Query"), rows, { body: bodies.query }), async (req) => {
      const filter = field<Row | null | undefined>(req.body, name);
      const page = await queryRows(db, req.scope, spec.table, filter, field<Windowing | null>(req.body, "windowing"));
      return many(plural, spec.shapeQuery ? spec.shapeQuery(page.items, filter) : page.items, page.windowing);
    });
    spec.collection?.(app, ctx);

    const idOfPath = (params: unknown) => field<string>(params, idParam);
    const fetched = spec.byIdAsList ? rows : oneOf(name, record);
    app.get(`${path}/:${idParam}`, doc(`Fetch ${spec.aRow}`, fetched, { params }), async (req) => {
      const found = await fetchRows(db, req.scope, spec.table, [idOfPath(req.params)]);
      return spec.byIdAsList ? many(plural, found) : one(name, found[0]);
    });
    if (edit) {
      const edited = doc(`Edit ${spec.aRow}`, oneOf(name, record), { params, body: bodies.edit });
      app.patch(`${path}/:${idParam}`, edited, async (req) => {
        const id = idOfPath(req.params);
        const change = field<Row>(req.body, name);
        return one(name, await db.transaction((tx) => edit(tx, req.scope, id, change)));
      });
    }
    const removed = spec.byIdAsList ? idsOf(idsKey) : idOf(idParam);
    app.delete(`${path}/:${idParam}`, doc(`Delete ${spec.aRow}`, removed, { params }), async (req) => {
      const ids = await spec.remove(db, req.scope, [idOfPath(req.params)]);
      if (spec.byIdAsList) return { count: ids.length, [idsKey]: ids };
      return { count: ids[0] ? 1 : 0, [idParam]: ids[0] ?? null };
    });
    spec.member?.(app, ctx);
  };
}
