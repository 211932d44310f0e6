import { hash } from "node:crypto";
import { uuidFromBytes } from "../../testsets/testcase-id.ts";

/**
 * What determines a step's result, as a UUID: the step's revision, the testcase it ran on, the repeat,
 * and the hash of the step it grades (an evaluator's result depends on the application's). Revisions
 * and testcases are immutable, so two cells with equal hashes would compute the same result, which is
 * what lets a run reuse an earlier one (`flags.is_cached`).
 */
export function resultHash(revisionId: string, testcaseId: string, repeat: number, upstream: string | null): string {
  const b = hash("sha256", `${revisionId}\n${testcaseId}\n${repeat}\n${upstream ?? ""}`, "buffer") as Buffer;
  b[6] = (b[6] & 0x0f) | 0x80;
  b[8] = (b[8] & 0x3f) | 0x80;
  return uuidFromBytes(b.subarray(0, 16));
}

/** A step the server computes for each scenario, with the revision it pins. */
export interface ComputedStep {
  key: string;
  revisionId: string;
}

/**
 * The hashes of one scenario's cells at one repeat, by step key: the application's (when the run has one),
 * then each evaluator's, which depends on it.
 */
export function cellHashes(
  app: ComputedStep | null, graders: ComputedStep[], testcaseId: string, repeat: number,
): Map<string, string> {
  const appHash = app ? resultHash(app.revisionId, testcaseId, repeat, null) : null;
  const hashes = new Map(app ? [[app.key, appHash!]] : []);
  for (const g of graders) hashes.set(g.key, resultHash(g.revisionId, testcaseId, repeat, appHash));
  return hashes;
}
