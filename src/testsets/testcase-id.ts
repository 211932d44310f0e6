import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical-json.ts";

/** Formats 16 bytes as a UUID string. */
export function uuidFromBytes(b: Uint8Array): string {
  const hex = Buffer.from(b.buffer, b.byteOffset, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export const uuidToBytes = (id: string): Buffer => Buffer.from(id.replace(/-/g, ""), "hex");

/**
 * A testcase id: the first 16 bytes of SHA-256 over the canonical JSON of its data, its testset id and
 * an optional salt, with the version (8, "custom") and RFC 4122 variant bits set so it is a valid UUID.
 * Same content in the same testset → same id.
 */
export function testcaseId(data: Record<string, unknown>, testsetId: string, salt?: string | null): string {
  const hash = createHash("sha256").update(canonicalJson(data)).update("\n").update(testsetId);
  if (salt) hash.update("\n").update(salt);
  const b = hash.digest();
  b[6] = (b[6] & 0x0f) | 0x80;
  b[8] = (b[8] & 0x3f) | 0x80;
  return uuidFromBytes(b);
}

/**
 * Generated row identity for rows that bring no `testcase_dedup_id`: a hash of the content and of how
 * many identical rows came before it in the same upload, so two identical rows stay two rows.
 */
export class DedupIds {
  private readonly seen = new Map<string, number>();

  next(data: Record<string, unknown>): string {
    const content = canonicalJson(data);
    // Keyed by a digest, not the content: an upload's memory must not grow with its rows' size.
    const key = createHash("sha256").update(content).digest("base64");
    const occurrence = this.seen.get(key) ?? 0;
    this.seen.set(key, occurrence + 1);
    return createHash("sha256").update(content).update(`#${occurrence}`).digest("hex").slice(0, 32);
  }
}
