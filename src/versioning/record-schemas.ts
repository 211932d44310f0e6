import { Type, type TSchema } from "typebox";
import { FreeObject, Nullable } from "../schema-parts.ts";

/*
 * The records of records.ts as response schemas. Each lists its fields and allows more
 * (`additionalProperties: true`): the kind-named id spellings vary by kind, and a listed-only schema
 * would make the serialiser drop them.
 */

const Open = { additionalProperties: true } as const;
// Ids without `format`: a runtime response schema that checks a format would fail the answer, not the client.
const Id = Type.String({ description: "UUID" });
const Stamp = Nullable(Type.String({ description: "ISO 8601 date-time" }));

const lifecycle = {
  id: Id,
  slug: Nullable(Type.String()),
  name: Nullable(Type.String()),
  description: Nullable(Type.String()),
  flags: Nullable(FreeObject),
  tags: Nullable(FreeObject),
  meta: Nullable(FreeObject),
  created_at: Stamp,
  updated_at: Stamp,
  deleted_at: Stamp,
  created_by_id: Nullable(Id),
  updated_by_id: Nullable(Id),
  deleted_by_id: Nullable(Id),
};

/** An artifact (testset, application, workflow, evaluator, environment) as answered. */
export const ArtifactRecordSchema = Type.Object(lifecycle, Open);

/** A variant: its artifact's id and slug, also under the kind's own names (`testset_id`…). */
export const VariantRecordSchema = Type.Object({
  ...lifecycle, artifact_id: Nullable(Id), artifact_slug: Nullable(Type.String()),
}, Open);

/** A revision: version as a string, its lineage, and `data` unless metadata alone was asked for. */
export const RevisionRecordSchema = Type.Object({
  ...lifecycle,
  version: Nullable(Type.String()),
  author: Nullable(Id),
  date: Stamp,
  message: Nullable(Type.String()),
  parent_id: Nullable(Id),
  artifact_id: Nullable(Id),
  artifact_slug: Nullable(Type.String()),
  variant_id: Nullable(Id),
  variant_slug: Nullable(Type.String()),
  columns: Type.Optional(Type.Array(Type.String(), {
    description: "Column names in order: the uploaded file's, then as they were added",
  })),
  data: Type.Optional(Type.Unknown()),
}, Open);

/** `{count, [key]: record}`, the reference's single-entity answer (the record is null or absent when not found). */
export const countedOne = (key: string, record: TSchema = FreeObject) =>
  Type.Object({ count: Type.Integer(), [key]: Type.Optional(Type.Union([record, Type.Null()])) }, Open);

/** `{count, [key]: [records]}`, the reference's list answer (with `windowing` when paged). */
export const countedMany = (key: string, record: TSchema = FreeObject) =>
  Type.Object({ count: Type.Integer(), [key]: Type.Array(record) }, Open);
