import { hash } from "node:crypto";
import { canonicalJson } from "./canonical-json.ts";

/** Formats 16 bytes as a UUID string. */
export function uuidFromBytes(b: Uint8Array): string {
  const hex = Buffer.from(b.buffer, b.byteOffset, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export const uuidToBytes = (id: string): Buffer => Buffer.from(id.replace(/-/g, ""), "hex");

const sha256 = (text: string) => hash("sha256", text, "buffer") as Buffer;

/**
 * A testcase id as 16 bytes, from the canonical JSON of its data: the first 16 bytes of SHA-256 over
 * that text, its testset id and an optional salt, with the version (8, "custom") and RFC 4122 variant
 * bits set so it is a valid UUID. Same content in the same testset → same id.
 */
export function testcaseIdBytes(canonical: string, testsetId: string, salt?: string | null): Buffer {
  const b = sha256(salt ? `${canonical}\n${testsetId}\n${salt}` : `${canonical}\n${testsetId}`);
  b[6] = (b[6] & 0x0f) | 0x80;
  b[8] = (b[8] & 0x3f) | 0x80;
  return b.subarray(0, 16);
}

export function testcaseId(data: Record<string, unknown>, testsetId: string, salt?: string | null): string {
  return uuidFromBytes(testcaseIdBytes(canonicalJson(data), testsetId, salt));
}

/**
 * A set of 16-byte digests with a count each, in flat typed arrays (about 40 bytes a digest at a
 * million): uploads track every row by digest without a JS string or object per row.
 */
export class DigestCounts {
  private keys = new Uint32Array(4 * 1024);
  private counts = new Uint32Array(1024);
  private size = 0;

  /** How many times `digest` (its first 16 bytes) was counted before this call; counts it once more. */
  bump(digest: Uint8Array): number {
    if ((this.size + 1) * 4 > this.counts.length * 3) this.grow();
    const view = new DataView(digest.buffer, digest.byteOffset, 16);
    const a = view.getUint32(0), b = view.getUint32(4), c = view.getUint32(8), d = view.getUint32(12);
    const mask = this.counts.length - 1;
    for (let slot = (a ^ c) & mask; ; slot = (slot + 1) & mask) {
      const n = this.counts[slot];
      if (n === 0) {
        this.keys.set([a, b, c, d], slot * 4);
        this.counts[slot] = 1;
        this.size++;
        return 0;
      }
      const k = slot * 4;
      if (this.keys[k] === a && this.keys[k + 1] === b && this.keys[k + 2] === c && this.keys[k + 3] === d) {
        this.counts[slot] = n + 1;
        return n;
      }
    }
  }

  private grow() {
    const { keys, counts } = this;
    this.keys = new Uint32Array(keys.length * 2);
    this.counts = new Uint32Array(counts.length * 2);
    this.size = 0;
    const mask = this.counts.length - 1;
    for (let i = 0; i < counts.length; i++) {
      if (counts[i] === 0) continue;
      const a = keys[i * 4], c = keys[i * 4 + 2];
      let slot = (a ^ c) & mask;
      while (this.counts[slot] !== 0) slot = (slot + 1) & mask;
      this.keys.set(keys.subarray(i * 4, i * 4 + 4), slot * 4);
      this.counts[slot] = counts[i];
      this.size++;
    }
  }
}

/**
 * Generated row identity for rows that bring no `testcase_dedup_id`: a hash of the content and of how
 * many identical rows came before it in the same upload, so two identical rows stay two rows.
 */
export class DedupIds {
  // Keyed by the first occurrence's digest (computed anyway): memory does not grow with the rows' size.
  private readonly seen = new DigestCounts();

  next(data: Record<string, unknown>): string {
    return this.nextFor(canonicalJson(data));
  }

  /** `content` is the canonical JSON of the row's data without a dedup id. */
  nextFor(content: string): string {
    const first = sha256(`${content}#0`);
    const occurrence = this.seen.bump(first);
    return (occurrence === 0 ? first : sha256(`${content}#${occurrence}`)).toString("hex", 0, 16);
  }
}
