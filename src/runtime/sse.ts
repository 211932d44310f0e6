import { failureEnvelope } from "./envelope.ts";
import type { StreamEvent } from "./invoke.ts";

/** One server-sent event; JSON never contains a raw newline, so one `data:` line suffices. */
export function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * A stream of invocation events as SSE: `delta` events `{text}`, then `done`
 * `{trace_id, span_id, outputs, usage?}`, or an `error` event carrying the failure envelope.
 */
export async function* encodeSse(events: AsyncIterable<StreamEvent>): AsyncGenerator<string> {
  try {
    for await (const event of events) {
      if (event.type === "delta") yield sseEvent("delta", { text: event.text });
      else {
        const { result } = event;
        yield sseEvent("done", { trace_id: result.traceId, span_id: result.spanId, outputs: result.outputs, ...(result.usage && { usage: result.usage }) });
      }
    }
  } catch (error) {
    yield sseEvent("error", failureEnvelope(error));
  }
}
