import { Type } from "typebox";
import { FreeObject, Nullable } from "../schema-parts.ts";

/* The runtime's answers (envelope.ts, the inspect answer) as documented response schemas. */

const Open = { additionalProperties: true } as const;
const ids = { trace_id: Type.String(), span_id: Type.String(), session_id: Type.Optional(Type.String()) };

/** A successful invocation: `data.outputs` holds what the workflow returned. */
export const SuccessEnvelopeSchema = Type.Object({
  version: Type.String(),
  status: Type.Object({ code: Type.Literal(200), message: Type.String() }, Open),
  ...ids,
  data: Type.Object({ outputs: Type.Unknown() }, Open),
}, Open);

/** A failed invocation: `status` carries the code, the error type and a message. */
export const FailureEnvelopeSchema = Type.Object({
  version: Type.String(),
  status: Type.Object({ code: Type.Integer(), type: Type.String(), message: Type.String() }, Open),
  ...ids,
}, Open);

/** What a service would run: its URI, URL, schemas and parameters. */
export const InspectSchema = Type.Object({
  version: Type.String(),
  data: Type.Object({ uri: Nullable(Type.String()), url: Nullable(Type.String()), schemas: Nullable(FreeObject), parameters: Nullable(FreeObject) }, Open),
  references: Nullable(FreeObject),
}, Open);

/** `{status: "ok"}` of a liveness probe. */
export const LivenessSchema = Type.Object({ status: Type.Literal("ok") }, Open);

/**
 * One server-sent event as OpenAPI 3.2 describes it (`itemSchema` of a sequential media type): its `event` name
 * and its `data` line, a JSON text whose schema each event names (`contentMediaType` and `contentSchema`).
 */
export function sseItemSchema(events: Record<string, object>) {
  return {
    type: "object",
    required: ["event", "data"],
    properties: {
      event: { type: "string", enum: Object.keys(events) },
      data: { type: "string", contentMediaType: "application/json" },
      id: { type: "string" },
      retry: { type: "integer", minimum: 0 },
    },
    oneOf: Object.entries(events).map(([name, schema]) => ({
      properties: { event: { enum: [name] }, data: { contentMediaType: "application/json", contentSchema: schema } },
    })),
  };
}

/**
 * An invoke streamed as server-sent events (`Accept: text/event-stream` or `flags.stream: true`; sse.ts):
 * `delta` events with text as it comes, then one `done` event, or one `error` event carrying the failure envelope.
 * `itemSchema` describes each event; `schema`, the whole stream, is the list of them.
 */
export const InvokeStreamContent = {
  schema: {
    type: "array",
    items: { type: "object", properties: { event: { type: "string" }, data: { type: "string" } } },
    description: [
      "Server-sent events, each `event: <name>` and one `data: <JSON>` line:",
      "`delta` `{text}` (a piece of the output, as the model writes it; none for workflows that do not stream),",
      "then either `done` `{trace_id, span_id, outputs, usage?}` (the whole output, as `data.outputs` of the JSON answer)",
      "or `error` (the failure envelope `{version, status: {code, type, message}, trace_id, span_id}`). The stream ends after either.",
    ].join(" "),
  },
  itemSchema: sseItemSchema({
    delta: Type.Object({ text: Type.String() }, Open),
    done: Type.Object({
      trace_id: Type.String(), span_id: Type.String(), outputs: Type.Unknown(), usage: Type.Optional(FreeObject),
    }, Open),
    error: FailureEnvelopeSchema,
  }),
  example: 'event: delta\ndata: {"text":"Par"}\n\nevent: delta\ndata: {"text":"is"}\n\n'
    + 'event: done\ndata: {"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","span_id":"00f067aa0ba902b7","outputs":"Paris"}\n\n',
};
