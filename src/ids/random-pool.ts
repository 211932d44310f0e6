import { randomFillSync } from "node:crypto";

/*
 * Random bytes for ids (UUIDv7s, trace and span ids), cut from a pool the system's generator fills 4 KB
 * at a time, as Node's own randomUUID does: one call into the generator per ~250 ids rather than per id,
 * which matters where every evaluation scenario makes several. Secrets (API keys, cipher IVs) do not use it.
 */
const pool = Buffer.allocUnsafe(4096);
let offset = pool.length;

function take(n: number): number {
  if (offset + n > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const at = offset;
  offset += n;
  return at;
}

/** `n` random bytes (n ≤ 4096), in a buffer of their own. */
export function randomBytesPooled(n: number): Buffer {
  const at = take(n);
  return Buffer.from(pool.subarray(at, at + n));
}

/** `n` random bytes (n ≤ 4096) as lowercase hex. */
export function randomHex(n: number): string {
  const at = take(n);
  return pool.toString("hex", at, at + n);
}
