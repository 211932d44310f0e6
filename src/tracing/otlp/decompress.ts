import { gunzipSync, inflateSync } from "node:zlib";
import { tooLarge } from "../../errors.ts";

const isGzip = (b: Uint8Array) => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
// zlib's header byte 0x78 with the three check bytes its compression levels write.
const isZlib = (b: Uint8Array) => b.length >= 2 && b[0] === 0x78 && (b[1] === 0x01 || b[1] === 0x9c || b[1] === 0xda);

/**
 * The body, inflated when its first bytes say gzip or zlib (whatever Content-Encoding says, as the reference
 * does); past `maxBytes` once inflated, a 413. A body that only looks compressed is returned as it came.
 */
export function decompress(body: Buffer, maxBytes: number): Buffer {
  const inflate = isGzip(body) ? gunzipSync : isZlib(body) ? inflateSync : null;
  if (!inflate) return body;
  try {
    return inflate(body, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
      throw tooLarge(`OTLP batch exceeds ${maxBytes} bytes once decompressed`);
    }
    return body;
  }
}
