import { randomBytesPooled } from "./random-pool.ts";

let lastMs = 0;
let sequence = 0;

/**
 * UUIDv7 (RFC 9562): 48-bit Unix milliseconds, then random bits. Ids made in the same millisecond by
 * this process carry an increasing 12-bit counter so that they still sort in creation order, which
 * keyset pagination relies on.
 */
export function uuidv7(): string {
  let ms = Date.now();
  if (ms <= lastMs) {
    sequence = (sequence + 1) & 0xfff;
    if (sequence === 0) lastMs += 1;
    ms = lastMs;
  } else {
    lastMs = ms;
    sequence = randomBytesPooled(2).readUInt16BE(0) & 0x3ff;
  }
  const b = randomBytesPooled(16);
  b.writeUIntBE(ms, 0, 6);
  b[6] = 0x70 | (sequence >> 8);
  b[7] = sequence & 0xff;
  b[8] = 0x80 | (b[8] & 0x3f);
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: unknown): s is string => typeof s === "string" && UUID.test(s);
