import { randomHex } from "../ids/random-pool.ts";

/** What the lead stores per invocation: the root span's ids and every span recorded under it. */
export interface TraceRecord {
  traceId: string;
  spanId: string;
  spans: Span[];
}

export type SpanType = "workflow" | "task" | "chat" | "hook" | "code";

export interface Span {
  trace_id: string;
  span_id: string;
  parent_id: string | null;
  name: string;
  type: SpanType;
  start_time: string;
  end_time: string | null;
  duration_ms: number | null;
  status: { code: "ok" | "error"; message?: string };
  attributes: Record<string, unknown>;
}

/** W3C trace-context ids: 16 random bytes for a trace, 8 for a span, lowercase hex, never all zero. */
export function newTraceId(): string {
  return nonZeroHex(16);
}

export function newSpanId(): string {
  return nonZeroHex(8);
}

function nonZeroHex(bytes: number): string {
  for (;;) {
    const hex = randomHex(bytes);
    if (/[^0]/.test(hex)) return hex;
  }
}

/** Collects the spans of one trace; spans are listed in the order they started. */
export class Tracer {
  readonly traceId: string;
  readonly spans: Span[] = [];

  constructor(traceId: string = newTraceId()) {
    this.traceId = traceId;
  }

  start(name: string, type: SpanType, parent: Span | null, spanId: string = newSpanId()): OpenSpan {
    const span: Span = {
      trace_id: this.traceId,
      span_id: spanId,
      parent_id: parent?.span_id ?? null,
      name,
      type,
      start_time: new Date().toISOString(),
      end_time: null,
      duration_ms: null,
      status: { code: "ok" },
      attributes: {},
    };
    this.spans.push(span);
    return new OpenSpan(span);
  }

  record(root: Span): TraceRecord {
    return { traceId: this.traceId, spanId: root.span_id, spans: this.spans };
  }
}

export class OpenSpan {
  readonly span: Span;
  readonly #startedAt = performance.now();

  constructor(span: Span) {
    this.span = span;
  }

  set(attributes: Record<string, unknown>): void {
    Object.assign(this.span.attributes, attributes);
  }

  /** Ends the span once; later calls are ignored so `finally` blocks can end defensively. */
  end(error?: { message: string }): void {
    if (this.span.end_time !== null) return;
    this.span.end_time = new Date().toISOString();
    this.span.duration_ms = Math.round((performance.now() - this.#startedAt) * 1000) / 1000;
    if (error) this.span.status = { code: "error", message: error.message };
  }
}
