import { Type } from "typebox";
import { ForbidExtras, FreeObject, Nullable, Reference, Uuid, WindowingSchema } from "../schema-parts.ts";


const Strict = { additionalProperties: false } as const;
const Labels = Nullable(Type.Record(Type.String(), Type.Unknown()));

/** A testcase as clients send it; read-only fields of the reference's Testcase are tolerated. */
export const TestcaseInputSchema = Type.Object({
  id: Nullable(Uuid),
  testset_id: Nullable(Uuid),
  set_id: Nullable(Uuid),
  data: Nullable(FreeObject),
  flags: Labels,
  tags: Labels,
  meta: Labels,
}, { additionalProperties: true });

export const TestsetDataSchema = Type.Object({
  testcase_ids: Nullable(Type.Array(Uuid)),
  testcases: Nullable(Type.Array(TestcaseInputSchema)),
}, ForbidExtras);

export const TestsetDeltaSchema = Type.Object({
  rows: Nullable(Type.Object({
    add: Nullable(Type.Array(TestcaseInputSchema)),
    remove: Nullable(Type.Array(Uuid)),
    replace: Nullable(Type.Array(Type.Intersect([TestcaseInputSchema, Type.Object({ id: Uuid })]))),
  }, Strict)),
  columns: Nullable(Type.Object({
    add: Nullable(Type.Array(Type.String())),
    remove: Nullable(Type.Array(Type.String())),
    replace: Nullable(Type.Union([
      Type.Array(Type.Array(Type.String(), { minItems: 2, maxItems: 2 })),
      Type.Record(Type.String(), Type.String()),
    ])),
  }, Strict)),
}, Strict);

export const TestsetReadOptions = {
  include_testcases: Nullable(Type.Boolean()),
  include_testcase_ids: Nullable(Type.Boolean()),
};

/** The shared windowing plus `offset`: a row index to start a revision-ordered page at (for a grid that jumps). */
const TestcasesWindowingSchema = Type.Object({
  ...WindowingSchema.properties,
  offset: Nullable(Type.Integer({
    minimum: 0,
    description: "With a testset, variant or revision reference: the row position (0 = first row) the page starts at, " +
      "instead of `next`. Reads only the chunks covering the page. Past the last row the page is empty.",
  })),
}, Strict);

export const TestcasesQuerySchema = Type.Object({
  testcase_ids: Nullable(Type.Array(Uuid)),
  testset_id: Nullable(Uuid),
  testset_ref: Nullable(Reference),
  testset_variant_ref: Nullable(Reference),
  testset_revision_ref: Nullable(Reference),
  windowing: Nullable(TestcasesWindowingSchema),
}, Strict);

export const TestcasesListQuery = Type.Object({
  testset_id: Type.Optional(Uuid),
  testcase_id: Type.Optional(Type.Array(Uuid)),
  testcase_ids: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
  next: Type.Optional(Uuid),
});

export const DownloadQuery = Type.Object({
  file_type: Type.Optional(Type.Union([Type.Literal("csv"), Type.Literal("json"), Type.Literal("jsonl"), Type.Null()])),
  file_name: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  escape_formulas: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], {
    description: "CSV only: prefix cells that start with =, +, -, @, tab or carriage return with a single quote",
  })),
});

export const TestcaseResponse = Type.Object({ count: Type.Integer(), testcase: Type.Optional(FreeObject) }, { additionalProperties: true });
export const TestcasesResponse = Type.Object({
  count: Type.Integer(),
  testcases: Type.Array(FreeObject),
  testcase_count: Type.Optional(Type.Integer({ description: "With a testset, variant or revision reference: the revision's row count" })),
}, { additionalProperties: true });
