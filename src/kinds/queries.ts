import type { Kind } from "../versioning/kind.ts";

/**
 * A query is a saved trace filter (`filtering`, `windowing`, `formatting`, or a fixed list of trace ids), versioned
 * like every other kind so that a live evaluation or an annotation queue can pin the revision it reads.
 * Queries are never deployed and embed nothing.
 */
export const queries: Kind = {
  name: "query",
  plural: "queries",
  family: "query",
  aliases: [],
  flags: {},
};
