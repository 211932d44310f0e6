/*
 * Simple traces and annotations: one-span traces that record a self-contained event (a score, a piece of
 * feedback, a logged output), stored in the spans table as the reference stores them. `origin`, `kind` and
 * `channel` live as `ag.flags`, `data`, `tags`, `meta` and `references` under `ag`, and `links` as the span's
 * links, each named by its `attributes.key`. Its span always carries a list of links (empty when none is given),
 * so, as in the reference, every one is of type `annotation` (rollup.ts).
 */

import { randomUUID } from "node:crypto";
import type { Scope } from "../../accounts/scope.ts";
import type { Config } from "../../config.ts";
import type { Database } from "../../db/database.ts";
import { badRequest, unprocessable } from "../../errors.ts";
import { querySpans, type SpanWindow } from "../query/query-spans.ts";
import { spanIdHex, spanIdToUuid, traceIdHex, traceIdToUuid } from "../span.ts";
import { ingestJsonSpans } from "../span-ingest.ts";
import { deleteTrace, spansOfTraces, type StoredSpan } from "../spans.ts";
import { resolveFeedbackEvaluator } from "./feedback-evaluator.ts";
import { outputIssues } from "./output-schema.ts";

type Json = Record<string, any>;
/** A link as clients give it: a span's ids (other fields, such as a testcase's `id`, are not stored). */
export type LinkInput = { trace_id?: string | null; span_id?: string | null } & Json;
type Links = Record<string, LinkInput> | LinkInput[];
const REF_FIELDS = ["id", "slug", "version"];

/** A simple trace as a client creates it. */
export interface SimpleTraceCreate {
  origin?: "custom" | "human" | "auto" | null;
  kind?: "adhoc" | "eval" | "play" | null;
  channel?: "otlp" | "web" | "sdk" | "api" | null;
  tags?: Json | null;
  meta?: Json | null;
  data: Json;
  references?: Json | null;
  links?: Links | null;
}

/** What an edit replaces: `data`, `tags` and `meta` always; `references` and `links` when given. */
export type SimpleTraceEdit = Pick<SimpleTraceCreate, "tags" | "meta" | "data" | "references" | "links">;

/** What a query matches: every field given must match; `links` as a map must all match, as a list any. */
export type SimpleTraceQuery = Omit<Partial<SimpleTraceCreate>, "data">;

/** `annotation`: the `/annotations/` contract (the evaluator always resolved, outputs checked against its schema). */
export type SimpleTraceMode = "trace" | "annotation";

/** What the engine needs: the database, and the configuration evaluators are created with. */
export interface SimpleTraceDeps {
  db: Database;
  config: Config;
}

function flagsOf(t: Pick<SimpleTraceCreate, "origin" | "kind" | "channel">): Json {
  const flags: Json = {};
  if (t.origin === "human") flags.is_feedback = true;
  else if (t.origin === "custom" || !t.origin) flags.is_custom = true;
  if (t.kind === "eval") flags.is_evaluation = true;
  if (t.channel === "sdk") flags.is_sdk = true;
  else if (t.channel === "web") flags.is_web = true;
  return flags;
}

function describe(flags: Json | undefined) {
  const f = flags ?? {};
  return {
    origin: f.is_custom ? "custom" : f.is_feedback ? "human" : "auto",
    kind: f.is_evaluation ? "eval" : "adhoc",
    channel: f.is_sdk ? "sdk" : f.is_web ? "web" : "api",
  };
}

function idOf(value: unknown, parse: (id: string) => string, what: string): string {
  try {
    return parse(String(value));
  } catch {
    throw badRequest(`${what} is not ${parse === spanIdToUuid ? "a span id (16 hex digits)" : "a trace id (a UUID)"}`);
  }
}

/** The links as span links named by `attributes.key` (a list's by position); one without both ids is dropped. */
function spanLinks(links: Links | null | undefined): Json[] {
  const named = Array.isArray(links) ? links.map((l, i) => [String(i), l] as const) : Object.entries(links ?? {});
  return named.flatMap(([key, link]) => {
    if (!link || !link.trace_id || !link.span_id) return [];
    const traceId = traceIdHex(idOf(link.trace_id, traceIdToUuid, `links.${key}.trace_id`));
    const spanId = spanIdHex(idOf(link.span_id, spanIdToUuid, `links.${key}.span_id`));
    return [{ trace_id: traceId, span_id: spanId, attributes: { key } }];
  });
}

function checkReferences(references: Json): void {
  for (const [key, ref] of Object.entries(references)) {
    if (key !== "selector" && ref?.id) idOf(ref.id, traceIdToUuid, `references.${key}.id`);
  }
}

/** The trace a client reads from its stored spans; null when it is no simple trace (no root or no `data`). */
function simpleTraceOf(spans: StoredSpan[]): Json | null {
  const root = spans.find((span) => span.parent_id === null);
  const ag: Json = root?.attributes.ag ?? {};
  if (!root || !ag.data || Object.keys(ag.data).length === 0) return null;
  const references: Json = {};
  for (const [key, ref] of Object.entries<Json>(ag.references ?? {})) {
    if (key === "selector" || !ref || typeof ref !== "object") continue;
    references[key] = Object.fromEntries(REF_FIELDS.filter((k) => ref[k] != null).map((k) => [k, ref[k]]));
  }
  const links: Json = {};
  for (const link of root.links ?? []) {
    const key = link.attributes?.key;
    if (key === undefined) continue;
    links[String(key)] = { trace_id: traceIdHex(link.trace_id), span_id: spanIdHex(link.span_id) };
  }
  return {
    trace_id: traceIdHex(root.trace_id), span_id: spanIdHex(root.span_id), created_at: root.created_at,
    ...(root.created_by_id ? { created_by_id: root.created_by_id } : {}),
    ...describe(ag.flags),
    ...(ag.tags ? { tags: ag.tags } : {}), ...(ag.meta ? { meta: ag.meta } : {}),
    data: ag.data, references, links,
  };
}

async function readTrace(db: Database, scope: Scope, traceId: string): Promise<Json | null> {
  return simpleTraceOf(await spansOfTraces(db, scope, [traceId]));
}

/**
 * Resolves the evaluator where the mode asks for it (a simple trace's only on create, with links), and checks an
 * annotation's `data.outputs` against its schema.
 */
async function resolvedReferences(
  deps: SimpleTraceDeps, scope: Scope, mode: SimpleTraceMode, t: SimpleTraceEdit, creating: boolean,
): Promise<Json> {
  const references: Json = { ...(t.references ?? {}) };
  const linked = spanLinks(t.links).length > 0 || Object.keys(t.links ?? {}).length > 0;
  if (mode === "trace" && (!creating || !references.evaluator || !linked)) return references;
  if (mode === "annotation" && !references.evaluator && !references.evaluator_variant &&
    !references.evaluator_revision) {
    throw unprocessable([{ loc: ["body", "annotation", "references", "evaluator"], msg: "Field required",
      type: "missing" }]);
  }
  const outputs = t.data.outputs ?? t.data;
  const found = await resolveFeedbackEvaluator(deps.db, scope, deps.config, references, outputs);
  if (!found) return references;
  if (mode === "annotation") {
    const issues = outputIssues(outputs, found.outputsSchema, ["body", "annotation", "data", "outputs"]);
    if (issues.length > 0) throw unprocessable(issues);
  }
  return found.references;
}

type SpanIds = { traceId: string; spanId: string; start: string };

function spanOf(ids: SpanIds, flags: Json, t: SimpleTraceEdit, references: Json): Json {
  const evaluator = references.evaluator?.slug;
  return {
    trace_id: ids.traceId, span_id: ids.spanId, span_name: typeof evaluator === "string" ? evaluator : "annotation",
    start_time: ids.start, end_time: ids.start, span_kind: "SPAN_KIND_INTERNAL",
    attributes: {
      ag: {
        type: { span: "task" }, flags, data: t.data, references,
        ...(t.tags ? { tags: t.tags } : {}), ...(t.meta ? { meta: t.meta } : {}),
      },
    },
    links: spanLinks(t.links),
  };
}

/**
 * Checks the ids the trace names, resolves its references, then stores its span (a body within the depth limit
 * is within the store's: the span's attributes nest `data` as deep as the body does).
 */
async function write(
  deps: SimpleTraceDeps, scope: Scope, mode: SimpleTraceMode, ids: SpanIds, flags: Json, t: SimpleTraceEdit,
  creating: boolean,
): Promise<void> {
  checkReferences(t.references ?? {});
  const references = await resolvedReferences(deps, scope, mode, t, creating);
  await ingestJsonSpans(deps.db, scope, [spanOf(ids, flags, t, references)]);
}

/** Creates a one-span trace under new ids; answers it as `fetchSimpleTrace` would. */
export async function createSimpleTrace(
  deps: SimpleTraceDeps, scope: Scope, mode: SimpleTraceMode, t: SimpleTraceCreate,
): Promise<Json> {
  const traceId = randomUUID().replaceAll("-", "");
  const spanId = randomUUID().replaceAll("-", "").slice(16);
  await write(deps, scope, mode, { traceId, spanId, start: new Date().toISOString() }, flagsOf(t), t, true);
  return (await readTrace(deps.db, scope, traceIdToUuid(traceId)))!;
}

/** The simple trace `traceId` (hex or UUID) names, or null when this project holds none. */
export async function fetchSimpleTrace(deps: SimpleTraceDeps, scope: Scope, traceId: string): Promise<Json | null> {
  return readTrace(deps.db, scope, idOf(traceId, traceIdToUuid, "trace_id"));
}

/** Replaces a simple trace's `data`, `tags`, `meta` (and `references`, `links` when given); null when absent. */
export async function editSimpleTrace(
  deps: SimpleTraceDeps, scope: Scope, mode: SimpleTraceMode, traceId: string, edit: SimpleTraceEdit,
): Promise<Json | null> {
  const id = idOf(traceId, traceIdToUuid, "trace_id");
  const [root] = (await spansOfTraces(deps.db, scope, [id])).filter((span) => span.parent_id === null);
  const existing = root ? simpleTraceOf([root]) : null;
  if (!root || !existing) return null;
  const next: SimpleTraceEdit = {
    ...edit, references: edit.references ?? existing.references, links: edit.links ?? existing.links,
  };
  const ids = { traceId: traceIdHex(id), spanId: spanIdHex(root.span_id), start: root.start_time };
  await write(deps, scope, mode, ids, root.attributes.ag?.flags ?? {}, next, false);
  return readTrace(deps.db, scope, id);
}

/** Deletes the trace; its root span's ids, or null when this project holds no such trace. */
export async function deleteSimpleTrace(
  deps: SimpleTraceDeps, scope: Scope, traceId: string,
): Promise<{ trace_id: string; span_id: string } | null> {
  const deleted = await deleteTrace(deps.db, scope, idOf(traceId, traceIdToUuid, "trace_id"));
  const [first] = deleted;
  return first ? { trace_id: traceIdHex(first.trace_id), span_id: spanIdHex(first.span_id) } : null;
}

const is = (key: string, value: unknown, operator = "is") => ({ field: "attributes", key, value, operator });

function linkConditions(links: Links): Json[] {
  const one = (link: LinkInput) => ({ field: "links", operator: "in", value: [link] });
  if (Array.isArray(links)) {
    return links.length > 0 ? [{ operator: "or", conditions: links.filter(Boolean).map(one) }] : [];
  }
  return Object.values(links).filter(Boolean).map(one);
}

/** The filtering a query stands for, in `/tracing/spans/query` terms. */
function filteringOf(mode: SimpleTraceMode, q: SimpleTraceQuery | null, traceLinks: LinkInput[] | null): Json {
  const types = mode === "annotation" ? ["annotation"] : ["invocation", "annotation"];
  const conditions: Json[] = [{ operator: "or", conditions: types.map((type) => is("ag.type.trace", type)) }];
  const ids = (traceLinks ?? []).map((link) => link?.trace_id).filter(Boolean);
  if (traceLinks && traceLinks.length > 0) {
    const value = ids.map((id) => idOf(id, traceIdToUuid, "links.trace_id"));
    conditions.push({ field: "trace_id", operator: "in", value });
  }
  if (q?.origin === "human") conditions.push(is("ag.flags.is_feedback", true));
  if (q?.origin === "custom") conditions.push(is("ag.flags.is_custom", true));
  if (q?.origin === "auto") {
    conditions.push(is("ag.flags.is_feedback", true, "is_not"), is("ag.flags.is_custom", true, "is_not"));
  }
  if (q?.kind === "eval") conditions.push(is("ag.flags.is_evaluation", true));
  if (q?.kind === "adhoc" || q?.kind === "play") conditions.push(is("ag.flags.is_evaluation", true, "is_not"));
  if (q?.channel === "sdk") conditions.push(is("ag.flags.is_sdk", true));
  if (q?.channel === "web") conditions.push(is("ag.flags.is_web", true));
  if (q?.channel === "api" || q?.channel === "otlp") {
    conditions.push(is("ag.flags.is_sdk", true, "is_not"), is("ag.flags.is_web", true, "is_not"));
  }
  for (const [key, value] of Object.entries(q?.tags ?? {})) conditions.push(is(`ag.tags.${key}`, value));
  for (const [key, value] of Object.entries(q?.meta ?? {})) conditions.push(is(`ag.meta.${key}`, value));
  for (const [key, ref] of Object.entries<Json>(q?.references ?? {})) {
    if (key === "selector" || !ref) continue;
    const fields = REF_FIELDS.filter((k) => ref[k] != null).map((k) => [k, String(ref[k])]);
    conditions.push(is(`ag.references.${key}`, Object.fromEntries(fields)));
  }
  if (q?.links) conditions.push(...linkConditions(q.links));
  return { operator: "and", conditions };
}

/** The simple traces matching `q` (and, with `traceLinks`, only those traces), newest first. */
export async function querySimpleTraces(
  deps: SimpleTraceDeps, scope: Scope, mode: SimpleTraceMode,
  q: SimpleTraceQuery | null, traceLinks: LinkInput[] | null, windowing: SpanWindow | null,
): Promise<Json[]> {
  if (traceLinks && traceLinks.every((link) => !link?.trace_id)) return [];
  const filtering = filteringOf(mode, q, traceLinks);
  const { spans } = await querySpans(deps.db, scope, { focus: "trace", filtering, windowing: windowing ?? {} });
  const byTrace = new Map<string, StoredSpan[]>();
  for (const span of spans) byTrace.set(span.trace_id, [...(byTrace.get(span.trace_id) ?? []), span]);
  return [...byTrace.values()].flatMap((group) => {
    const trace = simpleTraceOf(group);
    return trace ? [trace] : [];
  });
}
