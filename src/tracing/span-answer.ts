/*
 * Spans as the reference answers them: ids in hex (32 digits a trace, 16 a span), absent fields left out, and,
 * for a trace, its root spans keyed by name with each span's children under `spans` (two of one name: a list).
 */

import { spanIdHex, traceIdHex } from "./span.ts";
import type { StoredSpan } from "./spans.ts";

type Json = Record<string, unknown>;
type Node = Json & { spans?: Record<string, Node | Node[]> };

/** One span as answered. */
export function spanAnswer(span: StoredSpan): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(span)) if (value !== null && value !== undefined) out[key] = value;
  out.trace_id = traceIdHex(span.trace_id);
  out.span_id = spanIdHex(span.span_id);
  if (span.parent_id) out.parent_id = spanIdHex(span.parent_id);
  if (span.links) {
    out.links = span.links.map((link) =>
      ({ ...link, trace_id: traceIdHex(link.trace_id), span_id: spanIdHex(link.span_id) }));
  }
  // The reference's SDK records a bare return value as `outputs.__default__`; it answers the value itself.
  const data = (out.attributes as { ag?: { data?: Json } } | undefined)?.ag?.data;
  const outputs = data?.outputs;
  if (outputs && typeof outputs === "object" && "__default__" in outputs) data!.outputs = (outputs as Json).__default__;
  return out;
}

/** The spans of several traces as `{trace_id: {spans: {root_name: span}}}`, children nested under their parents. */
export function traceTrees(spans: StoredSpan[]): Record<string, { spans: Record<string, Node | Node[]> }> {
  const nodes = new Map<string, Node>();
  for (const span of spans) nodes.set(`${span.trace_id}/${span.span_id}`, spanAnswer(span) as Node);
  const trees: Record<string, { spans: Record<string, Node | Node[]> }> = {};
  for (const span of spans) {
    const node = nodes.get(`${span.trace_id}/${span.span_id}`)!;
    const parent = span.parent_id ? nodes.get(`${span.trace_id}/${span.parent_id}`) : undefined;
    if (parent) attach((parent.spans ??= {}), node);
    else if (!span.parent_id) (trees[traceIdHex(span.trace_id)] ??= { spans: {} }).spans[span.span_name] = node;
  }
  return trees;
}

function attach(children: Record<string, Node | Node[]>, node: Node): void {
  const name = node.span_name as string;
  const there = children[name];
  if (there === undefined) children[name] = node;
  else if (Array.isArray(there)) there.push(node);
  else children[name] = [there, node];
}
