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
const SUMMED = ["tokens", "costs"];

const metricsOf = (span: Span): Record<string, Record<string, any>> => span.attributes.ag.metrics;
const numberOr0 = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : 0);
const vector = (value: unknown): Vector => {
  const v = isObject(value) ? value : {};
  return { prompt: numberOr0(v.prompt), completion: numberOr0(v.completion), total: numberOr0(v.total) };
};
const addTo = (total: Vector, value: unknown) => {
  if (!isObject(value)) return;
  total.prompt += numberOr0(value.prompt);
  total.completion += numberOr0(value.completion);
  total.total += numberOr0(value.total);
};
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

const NO_SPANS: Span[] = [];

/** Cumulative tokens, costs and errors: a span's own plus its children's cumulative, from the leaves up. */
function cumulate(group: Span[]): void {
  // One span an id: the last, which is the one stored (spans.ts).
  const byId = new Map<string, Span>();
  for (const span of group) byId.set(span.span_id, span);
  const children = new Map<string, Span[]>();
  const order: Span[] = [];
  for (const span of byId.values()) {
    const parent = span.parent_id;
    if (parent === null || !byId.has(parent)) order.push(span);
    else {
      const list = children.get(parent);
      if (list) list.push(span);
      else children.set(parent, [span]);
    }
  }
  // Breadth first from the roots (a span whose parent is not in the batch sums its own subtree; spans in a cycle
  // are reached from none and left as they are), then summed from the last: children before their parents.
  for (let i = 0; i < order.length; i++) for (const kid of children.get(order[i]!.span_id) ?? NO_SPANS) order.push(kid);
  for (let i = order.length - 1; i >= 0; i--) sum(order[i]!, children.get(order[i]!.span_id) ?? NO_SPANS);
}

function sum(span: Span, kids: Span[]): void {
  const metrics = metricsOf(span);
  for (const name of SUMMED) {
    const total = vector(metrics[name]?.incremental);
    for (const kid of kids) addTo(total, metricsOf(kid)[name]?.cumulative);
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
