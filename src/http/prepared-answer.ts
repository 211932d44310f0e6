import type { RetrieveAnswer } from "../versioning/retrieve.ts";

/**
 * A cached resolution's answer to the retrieve body it is cached under, as sent: its ETag, serialised body and
 * ignored-fields header, worked out once while the resolution stays cached (a body's text names its read options,
 * and the resolution object is that body's alone). A resolved (`resolve: true`) answer is never kept: embedded
 * revisions may change.
 */
export interface PreparedAnswer {
  bodyText: string;
  tag: string;
  body: string;
  /** `body` as UTF-8, as the front door sends it. */
  bytes: Buffer;
  /** The `x-tessera-ignored-fields` the body's unknown fields earned, if any. */
  ignored: string | undefined;
}

const prepared = new WeakMap<RetrieveAnswer, PreparedAnswer>();

/** The answer prepared for `resolution` when it was retrieved by this very body text. */
export function preparedAnswer(resolution: RetrieveAnswer, bodyText: string): PreparedAnswer | undefined {
  const ready = prepared.get(resolution);
  return ready !== undefined && ready.bodyText === bodyText ? ready : undefined;
}

/** Keeps the answer sent to `answer.bodyText` for as long as `resolution` stays cached. */
export function prepareAnswer(resolution: RetrieveAnswer, answer: Omit<PreparedAnswer, "bytes">): void {
  prepared.set(resolution, { ...answer, bytes: Buffer.from(answer.body) });
}
