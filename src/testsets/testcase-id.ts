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
    const a = word(digest, 0), b = word(digest, 4), c = word(digest, 8), d = word(digest, 12);
    const { keys, counts } = this;
    const mask = counts.length - 1;
    for (let slot = (a ^ c) & mask; ; slot = (slot + 1) & mask) {
      const n = counts[slot];
      const k = slot * 4;
      if (n === 0) {
        keys[k] = a;
        keys[k + 1] = b;
        keys[k + 2] = c;
        keys[k + 3] = d;
        counts[slot] = 1;
        this.size++;
        return 0;
      }
      if (keys[k] === a && keys[k + 1] === b && keys[k + 2] === c && keys[k + 3] === d) {
        counts[slot] = n + 1;
        return n;
      }
    }
  }

  private grow() {
    const { keys, counts } = this;
    const grown = new Uint32Array(keys.length * 2);
    const grownCounts = new Uint32Array(counts.length * 2);
    const mask = grownCounts.length - 1;
    for (let i = 0; i < counts.length; i++) {
      if (counts[i] === 0) continue;
      let slot = (keys[i * 4] ^ keys[i * 4 + 2]) & mask;
      while (grownCounts[slot] !== 0) slot = (slot + 1) & mask;
      grown.set(keys.subarray(i * 4, i * 4 + 4), slot * 4);
      grownCounts[slot] = counts[i];
    }
    this.keys = grown;
    this.counts = grownCounts;
  }
}

/** Bytes `at`..`at + 3` of `bytes` as a big-endian unsigned 32-bit number, without a DataView a call. */
const word = (bytes: Uint8Array, at: number): number =>
  ((bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]) >>> 0;

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
