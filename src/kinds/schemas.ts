import { Type } from "typebox";
import { ForbidExtras, FreeObject, Nullable, Reference } from "../schema-parts.ts";

/** Revision payload of applications, evaluators and workflows (the reference forbids other keys). */
export const WorkflowDataSchema = Type.Object({
  uri: Nullable(Type.String({ maxLength: 2048 })),
  url: Nullable(Type.String({ maxLength: 2048 })),
  headers: Nullable(Type.Record(Type.String(), Type.Union([Type.String(), Reference]))),
  runtime: Nullable(Type.String({ enum: ["python", "typescript", "javascript"] })),
  script: Nullable(Type.String()),
  schemas: Nullable(Type.Object({ parameters: Nullable(FreeObject), inputs: Nullable(FreeObject), outputs: Nullable(FreeObject) }, { additionalProperties: false })),
  parameters: Nullable(FreeObject),
}, ForbidExtras);

export const WorkflowDeltaSchema = Type.Object({
  set: Nullable(FreeObject),
  remove: Nullable(Type.Array(Type.String())),
  operations: Nullable(Type.Array(Type.Object({
    operation: Type.String({ enum: ["set", "merge", "remove", "add_item", "replace_item", "remove_item"] }),
    target: Type.Array(Type.Union([Type.String(), Type.Integer({ minimum: 0 })])),
    value: Type.Optional(Type.Unknown()),
  }, ForbidExtras))),
}, { additionalProperties: false });

const EnvironmentReferences = Type.Record(Type.String(), Type.Record(Type.String(), Reference));

export const EnvironmentDataSchema = Type.Object({ references: Nullable(EnvironmentReferences) }, ForbidExtras);
export const EnvironmentDeltaSchema = Type.Object({ set: Nullable(EnvironmentReferences), remove: Nullable(Type.Array(Type.String())) }, { additionalProperties: false });

const TraceTime = Type.Union([Type.String(), Type.Integer()]);

/** Revision payload of queries: a trace filter as the tracing routes take it, or a fixed list of traces. */
export const QueryDataSchema = Type.Object({
  formatting: Nullable(Type.Object({ focus: Nullable(Type.String()), format: Nullable(Type.String()) }, ForbidExtras)),
  filtering: Nullable(Type.Object({
    operator: Nullable(Type.String({ enum: ["and", "or", "not", "nand", "nor"] })),
    conditions: Type.Optional(Type.Array(FreeObject, { description: "Conditions, or nested filterings" })),
  }, ForbidExtras)),
  windowing: Nullable(Type.Object({
    oldest: Nullable(TraceTime), newest: Nullable(TraceTime), next: Nullable(Type.String()),
    limit: Nullable(Type.Integer({ minimum: 1 })), order: Nullable(Type.String({ enum: ["ascending", "descending"] })),
    interval: Nullable(Type.Integer()), rate: Nullable(Type.Number()),
  }, ForbidExtras)),
  trace_ids: Nullable(Type.Array(Type.String(), { maxItems: 10_000 })),
  traces: Nullable(Type.Array(FreeObject, { maxItems: 10_000 })),
}, ForbidExtras);
