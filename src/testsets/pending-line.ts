import type { PendingTestcase } from "./testcases.ts";

const NULL = "\\N";

/** A pending row as one spool line: its fields are JSON texts (no tab, no line break in them) or a UUID. */
export const encodePending = (r: PendingTestcase) =>
  [r.claimed, r.stored, r.flags, r.tags, r.meta].map((f) => f ?? NULL).join("\t");

/** The pending row of a spool line, its id being the `at`-th of the upload's packed ids. */
export const decodePending = (line: string, at: number): PendingTestcase => {
  const [claimed, stored, flags, tags, meta] = line.split("\t").map((f) => (f === NULL ? null : f));
  return { at, claimed, stored: stored!, flags, tags, meta };
};
