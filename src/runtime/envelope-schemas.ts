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
