import { randomBytes } from "node:crypto";
import { unprocessable } from "../errors.ts";

const SLUG = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** A client's slug, checked; or a readable one made from the name; or a random one. */
export function slugFor(given: string | null | undefined, name: string | null | undefined, field: string[]): string {
  if (given !== null && given !== undefined) {
    if (!SLUG.test(given)) {
      throw unprocessable([{ loc: ["body", ...field], msg: "Slug must be 1-128 letters, digits, '.', '_' or '-', starting with a letter or digit", type: "value_error" }]);
    }
    return given;
  }
  const stem = (name ?? "").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 48);
  return stem ? `${stem}-${shortHash()}` : shortHash();
}

/** Twelve hex digits, like a short commit hash: revision slugs. */
export const shortHash = () => randomBytes(6).toString("hex");
