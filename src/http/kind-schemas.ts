import { Type, type TSchema } from "typebox";
import type { Kind } from "../versioning/kind.ts";
import { FreeObject, Nullable, Reference, Uuid, WindowingSchema } from "../schema-parts.ts";
import { ArtifactRecordSchema, countedMany, countedOne, RevisionRecordSchema, VariantRecordSchema } from "../versioning/record-schemas.ts";

/** The record an answer's key holds: `…_revision(s)`, `…_variant(s)`, else the artifact. */
const recordSchemaOf = (key: string) =>
  /_revisions?$/.test(key) ? RevisionRecordSchema : /_variants?$/.test(key) ? VariantRecordSchema : ArtifactRecordSchema;

/*
 * Request and response schemas of every kind, generated from its descriptor. Unknown envelope fields
 * are ignored and named in a response header (schema-parts.ts); revision data keeps its own rule.
 */

const Strict = { additionalProperties: false } as const;

const Flags = Type.Record(Type.String(), Type.Union([Type.Boolean(), Type.Null()]));
const Labels = Type.Record(Type.String(), Type.Unknown());

const metadata = {
  name: Nullable(Type.String({ maxLength: 1024 })),
  description: Nullable(Type.String({ maxLength: 65536 })),
  flags: Nullable(Flags),
  tags: Nullable(Labels),
  meta: Nullable(Labels),
};

/** `{name}_{suffix}` for the kind's name and aliases, plus the generic field. */
export function idFields(kind: Kind, suffix: string, generic: string): Record<string, TSchema> {
  const out: Record<string, TSchema> = { [generic]: Nullable(Uuid) };
  for (const p of [kind.name, ...kind.aliases]) out[`${p}_${suffix}`] = Nullable(Uuid);
  return out;
}

export function kindSchemas(kind: Kind, dataSchema: TSchema, deltaSchema: TSchema | null, readOptions: Record<string, TSchema> = {}) {
  const n = kind.name;
  const artifactCreate = Type.Object({ slug: Nullable(Type.String()), folder_id: Nullable(Uuid), ...metadata }, Strict);
  const edit = Type.Object({ id: Nullable(Uuid), ...metadata }, Strict);
  const variantCreate = Type.Object({ ...idFields(kind, "id", "artifact_id"), slug: Nullable(Type.String()), ...metadata }, Strict);
  const revisionFields = {
    ...idFields(kind, "id", "artifact_id"),
    ...idFields(kind, "variant_id", "variant_id"),
    ...idFields(kind, "revision_id", "revision_id"),
    base_revision_id: Nullable(Uuid),
    slug: Nullable(Type.String()),
    message: Nullable(Type.String({ maxLength: 65536 })),
    ...metadata,
  };
  const commit = Type.Object({ ...revisionFields, data: Nullable(dataSchema), ...(deltaSchema ? { delta: Nullable(deltaSchema) } : {}) }, Strict);
  const query = Type.Object({
    flags: Nullable(Flags), tags: Nullable(Labels), meta: Nullable(Labels), name: Nullable(Type.String()),
    slug: Nullable(Type.String()), slugs: Nullable(Type.Array(Type.String())), folder_id: Nullable(Uuid), description: Nullable(Type.String()),
    search: Nullable(Type.String({ description: "Part of the name or of the slug, in any case (the console's search box)" })),
  }, Strict);
  const revisionQuery = Type.Object({
    flags: Nullable(Flags), tags: Nullable(Labels), meta: Nullable(Labels), name: Nullable(Type.String()),
    slug: Nullable(Type.String()), slugs: Nullable(Type.Array(Type.String())), author: Nullable(Uuid), authors: Nullable(Type.Array(Uuid)),
    date: Nullable(Type.String()), dates: Nullable(Type.Array(Type.String())), message: Nullable(Type.String()), description: Nullable(Type.String()),
  }, Strict);
  const refs = (key: string) => ({ [key]: Nullable(Type.Array(Reference)) });
  const log = Type.Object({
    ...idFields(kind, "id", "artifact_id"), ...idFields(kind, "variant_id", "variant_id"), ...idFields(kind, "revision_id", "revision_id"),
    depth: Nullable(Type.Integer({ minimum: 1 })),
  }, Strict);
  const retrieveRefs = {
    [`${n}_ref`]: Nullable(Reference),
    [`${n}_variant_ref`]: Nullable(Reference),
    [`${n}_revision_ref`]: Nullable(Reference),
    ...(kind.family === "environment" ? {} : {
      environment_ref: Nullable(Reference),
      environment_variant_ref: Nullable(Reference),
      environment_revision_ref: Nullable(Reference),
      key: Nullable(Type.String()),
    }),
  };
  return {
    artifactCreate: Type.Object({ [n]: artifactCreate }, Strict),
    artifactEdit: Type.Object({ [n]: edit }, Strict),
    artifactQuery: Type.Object({
      [n]: Nullable(query), ...refs(`${n}_refs`), include_archived: Nullable(Type.Boolean()), windowing: Nullable(WindowingSchema),
    }, Strict),
    variantCreate: Type.Object({ [`${n}_variant`]: variantCreate }, Strict),
    variantEdit: Type.Object({ [`${n}_variant`]: edit }, Strict),
    variantQuery: Type.Object({
      [`${n}_variant`]: Nullable(query), ...refs(`${n}_refs`), ...refs(`${n}_variant_refs`),
      include_archived: Nullable(Type.Boolean()), windowing: Nullable(WindowingSchema),
    }, Strict),
    // As the reference: the new variant and the source variant are required; a revision ref pins the source.
    variantFork: Type.Object({
      [`${n}_variant`]: Type.Object({ slug: Nullable(Type.String()), message: Nullable(Type.String()), ...metadata }, Strict),
      [`${n}_variant_ref`]: Reference,
      [`${n}_revision_ref`]: Nullable(Reference),
    }, Strict),
    revisionCreate: Type.Object({ [`${n}_revision`]: Type.Object(revisionFields, Strict) }, Strict),
    revisionEdit: Type.Object({ [`${n}_revision`]: edit }, Strict),
    revisionQuery: Type.Object({
      [`${n}_revision`]: Nullable(revisionQuery), ...refs(`${n}_refs`), ...refs(`${n}_variant_refs`), ...refs(`${n}_revision_refs`),
      include_archived: Nullable(Type.Boolean()), windowing: Nullable(WindowingSchema),
    }, Strict),
    commit: Type.Object({ [`${n}_revision_commit`]: Type.Optional(commit), [`${n}_revision`]: Type.Optional(commit), ...readOptions }, Strict),
    log: Type.Object({ [n]: Type.Optional(log), [`${n}_revisions`]: Type.Optional(log), [`${n}_revision`]: Type.Optional(log) }, Strict),
    retrieveRefs,
    deploy: Type.Object({ ...retrieveRefs, message: Nullable(Type.String()) }, Strict),
    one: (key: string) => countedOne(key, recordSchemaOf(key)),
    many: (key: string) => countedMany(key, recordSchemaOf(key)),
  };
}

