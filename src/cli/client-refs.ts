import type { Kind, RevisionRef } from "../../packages/client/src/index.ts";
import { UsageError } from "./command.ts";

export const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);

export const KINDS: Kind[] = ["applications", "workflows", "evaluators", "environments", "testsets"];

const ALIASES: Record<string, Kind> = { app: "applications", apps: "applications", env: "environments", envs: "environments" };

/** `applications`, or its singular, or `app(s)` / `env(s)`. */
export function parseKind(word: string | undefined): Kind {
  if (word === undefined) throw new UsageError(`KIND is required: one of ${KINDS.join(", ")}`);
  const kind = ALIASES[word] ?? KINDS.find((k) => k === word || k === `${word}s`);
  if (!kind) throw new UsageError(`Unknown KIND "${word}": use one of ${KINDS.join(", ")}`);
  return kind;
}

/** `3` or `v3`. */
export function parseVersion(text: string, what: string): number {
  const match = /^v?(\d+)$/i.exec(text);
  if (!match) throw new UsageError(`${what} must be a version number (3 or v3), got "${text}"`);
  return Number(match[1]);
}

/** A revision id, or SLUG@VERSION: version VERSION of the variant (or the artifact's default variant) with that slug. */
export function parseRevision(text: string | undefined, what: string): RevisionRef {
  if (!text) throw new UsageError(`${what} is required: a revision id or SLUG@VERSION (e.g. capitals@2)`);
  if (isUuid(text)) return { id: text.toLowerCase() };
  const at = text.lastIndexOf("@");
  if (at > 0) return { slug: text.slice(0, at), version: parseVersion(text.slice(at + 1), `The version in ${what} "${text}"`) };
  throw new UsageError(`${what} must be a revision id or SLUG@VERSION (e.g. capitals@2), got "${text}"`);
}
