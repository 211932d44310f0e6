/*
 * What a batch of spans decides together, trace by trace, as the reference's ingestion does: the trace type
 * (an annotation when any span of it has links), costs computed from tokens for known models, tokens, costs and
 * errors summed from children into `cumulative`, and the session, user and agent lifted onto root spans.
 */

import { isObject } from "./ag-attributes.ts";
import { costOf } from "./model-prices.ts";
import type { Span } from "./span.ts";

const TYPES_WITH_COSTS = new Set(["embedding", "query", "completion", "chat", "rerank"]);
type Vector = { prompt: number; completion: number; total: number };

const metricsOf = (span: Span): Record<string, Record<string, any>> => span.attributes.ag.metrics;
const numberOr0 = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : 0);
const vector = (value: unknown): Vector => {
  const v = isObject(value) ? value : {};
  return { prompt: numberOr0(v.prompt), completion: numberOr0(v.completion), total: numberOr0(v.total) };
};
const add = (a: Vector, b: Vector): Vector =>
  ({ prompt: a.prompt + b.prompt, completion: a.completion + b.completion, total: a.total + b.total });
const isZero = (v: Vector) => v.prompt === 0 && v.completion === 0 && v.total === 0;

/** The batch's spans with trace types, costs, cumulative metrics and root identities set (in place). */
export function rollUp(spans: Span[]): Span[] {
  const byTrace = new Map<string, Span[]>();
  for (const span of spans) {
    const group = byTrace.get(span.trace_id);
    if (group) group.push(span);
    else byTrace.set(span.trace_id, [span]);
  }
  for (const group of byTrace.values()) {
    const traceType = group.some((span) => span.links !== null) ? "annotation" : "invocation";
    for (const span of group) {
      span.trace_type = traceType;
      span.attributes.ag.type.trace = traceType;
      computeCosts(span);
    }
    cumulate(group);
  }
  for (const span of spans) if (span.parent_id === null) liftIdentity(span);
  return spans;
}

function computeCosts(span: Span): void {
  if (!TYPES_WITH_COSTS.has(span.span_type)) return;
  const ag = span.attributes.ag;
  const model = ag.meta?.response?.model ?? ag.data?.parameters?.model;
  if (typeof model !== "string") return;
  const tokens = vector(metricsOf(span).tokens?.incremental);
  const cost = costOf(model, tokens.prompt, tokens.completion);
  if (!cost) return;
  metricsOf(span).costs!.incremental = { prompt: cost[0], completion: cost[1], total: cost[0] + cost[1] };
}

/** Cumulative tokens, costs and errors: a span's own plus its children's cumulative, from the leaves up. */
function cumulate(group: Span[]): void {
  const ids = new Set(group.map((span) => span.span_id));
  const children = new Map<string, Span[]>();
  for (const span of group) {
    if (span.parent_id === null || !ids.has(span.parent_id)) continue;
    const list = children.get(span.parent_id);
    if (list) list.push(span);
    else children.set(span.parent_id, [span]);
  }
  // Iterative post-order (a deep trace must not exhaust the stack); a span whose parent is not in the batch
  // sums its own subtree.
  const roots = group.filter((span) => span.parent_id === null || !ids.has(span.parent_id));
  const done = new Set<string>();
  const stack = roots.map((span) => ({ span, expanded: false }));
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (done.has(top.span.span_id)) {
      stack.pop();
      continue;
    }
    if (!top.expanded) {
      top.expanded = true;
      for (const child of children.get(top.span.span_id) ?? []) stack.push({ span: child, expanded: false });
      continue;
    }
    stack.pop();
    done.add(top.span.span_id);
    sum(top.span, children.get(top.span.span_id) ?? []);
  }
}

function sum(span: Span, kids: Span[]): void {
  const metrics = metricsOf(span);
  for (const name of ["tokens", "costs"]) {
    let total = vector(metrics[name]?.incremental);
    for (const kid of kids) total = add(total, vector(metricsOf(kid)[name]?.cumulative));
    if (!isZero(total)) metrics[name]!.cumulative = total;
  }
  let errors = numberOr0(metrics.errors?.incremental);
  for (const kid of kids) errors += numberOr0(metricsOf(kid).errors?.cumulative);
  if (errors !== 0) metrics.errors!.cumulative = errors;
}

function liftIdentity(span: Span): void {
  const ag = span.attributes.ag;
  const id = (value: unknown) =>
    (isObject(value) && value.id !== undefined && value.id !== null ? String(value.id) : null);
  span.session_id = id(ag.session);
  span.user_id = id(ag.user);
  span.agent_id = id(ag.agent ?? ag.unsupported?.agent);
}
