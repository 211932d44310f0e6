import { Type, type TSchema } from "typebox";

/* Schema pieces shared by every route file; this module imports nothing of ours. */

/**
 * Objects list their fields with `additionalProperties: false`: an unknown field is dropped and named
 * in the response's `x-tessera-ignored-fields` header (the reference's models ignore extras). Only
 * objects that also carry this mark answer 422 for one: revision data the reference forbids extras in.
 */
export const FORBID_EXTRAS = "x-forbid-extras";
/** Options of an object whose unknown fields are a 422 (see FORBID_EXTRAS). */
export const ForbidExtras = { additionalProperties: false, [FORBID_EXTRAS]: true } as const;

const Strict = { additionalProperties: false } as const;

export const Nullable = <T extends TSchema>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));
export const Uuid = Type.String({ format: "uuid" });
/** Any JSON object; typed as a record of its fields, so a handler reads them without a cast. */
export const FreeObject = Type.Unsafe<Record<string, unknown>>(Type.Object({}, { additionalProperties: true }));

export const Reference = Type.Object({
  id: Nullable(Uuid),
  slug: Nullable(Type.String()),
  version: Nullable(Type.Union([Type.String(), Type.Integer({ minimum: 0 })])),
}, Strict);

export const WindowingSchema = Type.Object({
  newest: Nullable(Type.String({ format: "date-time" })),
  oldest: Nullable(Type.String({ format: "date-time" })),
  next: Nullable(Uuid),
  limit: Nullable(Type.Integer({ minimum: 1 })),
  order: Nullable(Type.Union([Type.Literal("ascending"), Type.Literal("descending")])),
  interval: Nullable(Type.Integer()),
  rate: Nullable(Type.Number()),
}, Strict);

/** A path parameter object holding one UUID named `name`. */
export const IdParam = <K extends string>(name: K) => Type.Object({ [name]: Uuid } as Record<K, typeof Uuid>);

const QUOTED_UUID = '(W/)?"?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"?';
/** `If-Match` on a commit: the revision the client expects to be the variant's latest (`*` or absent: any). */
export const IfMatchHeaders = Type.Object({
  "if-match": Type.Optional(Type.String({
    pattern: `^(\\*|${QUOTED_UUID})$`,
    description: "The revision expected as the variant's latest; when another is, a 409",
  })),
});
