/*
 * Spans as the traces table stores them. A trace's spans repeat what its row already holds: every span
 * names the trace, the root span's inputs and outputs are the row's, and a task's outputs or a model call's
 * prompt are often the very values an earlier span recorded. In an evaluation's traces (two a testcase) these
 * repeats were about a third of the spans' text. A stored span leaves them out and names, in `same`, where
 * each one is: `{"outputs": "row.outputs", "prompt": "1.messages"}` (the row's column, or an earlier span's
 * attribute by its index). `unpackSpans` puts them back, so a trace reads exactly as it was recorded.
 */

import type { Span } from "../runtime/trace.ts";

type Json = Record<string, unknown>;

/** The row's values a span's attributes may repeat. */
export interface TraceRow {
  inputs: unknown;
  outputs: unknown;
  usage: unknown;
}

const ROW_COLUMNS = ["inputs", "outputs", "usage"] as const;
/** Shorter strings are stored as they are: naming where they are would save little or nothing. */
const MIN_STRING = 16;

const worthNaming = (value: unknown) => isObject(value) || (typeof value === "string" && value.length >= MIN_STRING);

/**
 * The spans to store: each without `trace_id` and without the attribute values found in the row
 * or in an earlier span (objects by identity, strings by value), which its `same` names instead.
 */
export function packSpans(row: TraceRow, spans: Span[]): unknown[] {
  const seen = new Map<unknown, string>();
  for (const column of ROW_COLUMNS) {
    if (worthNaming(row[column]) && !seen.has(row[column])) seen.set(row[column], `row.${column}`);
  }
  return spans.map((span, index) => {
    const attributes: Json = {};
    let same: Record<string, string> | undefined;
    for (const name in span.attributes) {
      const value = span.attributes[name];
      const where = worthNaming(value) ? seen.get(value) : undefined;
      if (where) (same ??= {})[name] = where;
      else {
        attributes[name] = value;
        if (worthNaming(value)) seen.set(value, `${index}.${name}`);
      }
    }
    // Built field by field: a copy by rest and spread cost more than the bytes it saves.
    const { span_id, parent_id, name, type, start_time, end_time, duration_ms, status } = span;
    const stored = { span_id, parent_id, name, type, start_time, end_time, duration_ms, status, attributes };
    return same ? { ...stored, same } : stored;
  });
}

/** Spans as they were recorded, from what `packSpans` stored (spans stored whole, before it, pass unchanged). */
export function unpackSpans(row: TraceRow & { trace_id: string }, stored: unknown[]): unknown[] {
  const spans: unknown[] = [];
  for (const span of stored) {
    if (!isStoredSpan(span)) {
      spans.push(span);
      continue;
    }
    const { same, attributes, ...rest } = span;
    const restored: Json = { ...attributes };
    for (const [name, where] of Object.entries(same ?? {})) restored[name] = locate(row, spans, where);
    spans.push({ trace_id: row.trace_id, ...rest, attributes: restored });
  }
  return spans;
}

function locate(row: TraceRow, spans: unknown[], where: string): unknown {
  const dot = where.indexOf(".");
  const [head, name] = [where.slice(0, dot), where.slice(dot + 1)];
  if (head === "row") return row[name as keyof TraceRow] ?? null;
  return ((spans[Number(head)] as { attributes?: Json } | undefined)?.attributes ?? {})[name] ?? null;
}

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null;
const isSpan = (span: unknown): span is Json & { attributes: Json } => isObject(span) && isObject(span.attributes);

/** A span as `packSpans` stores it: no `trace_id` of its own. */
const isStoredSpan = (span: unknown): span is Json & { attributes: Json; same?: Record<string, string> } =>
  isSpan(span) && !("trace_id" in span);
