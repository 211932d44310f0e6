import { isIPv4, isIPv6 } from "node:net";

/**
 * Which kind of IP address this is, for the SSRF guard: only `public` may be reached from
 * user-supplied URLs. IPv6 forms that embed an IPv4 address (mapped, compatible, NAT64, 6to4) are
 * judged by the IPv4 address they carry.
 */
export type AddressKind =
  | "public"
  | "private"
  | "loopback"
  | "link-local"
  | "unique-local"
  | "unspecified"
  | "shared"
  | "multicast"
  | "reserved";

export function classifyAddress(address: string): AddressKind {
  const plain = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (isIPv4(plain)) return classifyV4(plain.split(".").map(Number));
  if (isIPv6(plain)) return classifyV6(parseV6(plain));
  return "reserved";
}

function classifyV4([a, b, c]: number[]): AddressKind {
  if (a === 0) return "unspecified";
  if (a === 127) return "loopback";
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return "private";
  if (a === 169 && b === 254) return "link-local";
  if (a === 100 && b >= 64 && b <= 127) return "shared";
  if (a >= 224 && a <= 239) return "multicast";
  if (a >= 240) return "reserved";
  if ((a === 192 && b === 0 && (c === 0 || c === 2)) || (a === 198 && (b === 18 || b === 19)) ||
      (a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113)) return "reserved";
  return "public";
}

function classifyV6(bytes: number[]): AddressKind {
  const zeroUntil = (n: number) => bytes.slice(0, n).every((x) => x === 0);
  const v4 = (from: number) => classifyV4(bytes.slice(from, from + 4));
  if (zeroUntil(16)) return "unspecified";
  if (zeroUntil(15) && bytes[15] === 1) return "loopback";
  if (zeroUntil(10) && bytes[10] === 0xff && bytes[11] === 0xff) return v4(12); // ::ffff:a.b.c.d
  if (zeroUntil(12)) return v4(12); // ::a.b.c.d (deprecated IPv4-compatible)
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b) {
    return bytes.slice(4, 12).every((x) => x === 0) ? v4(12) : "reserved"; // NAT64 64:ff9b::/96 and 64:ff9b:1::/48
  }
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return v4(2); // 6to4 2002::/16
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2] === 0x00 && bytes[3] === 0x00) return "reserved"; // Teredo
  if (bytes[0] === 0x20 && bytes[1] === 0x01 && bytes[2] === 0x0d && bytes[3] === 0xb8) return "reserved"; // documentation
  if ((bytes[0] & 0xfe) === 0xfc) return "unique-local";
  if (bytes[0] === 0xfe && (bytes[1] & 0xc0) === 0x80) return "link-local";
  if (bytes[0] === 0xfe && (bytes[1] & 0xc0) === 0xc0) return "private"; // deprecated site-local
  if (bytes[0] === 0xff) return "multicast";
  return (bytes[0] & 0xe0) === 0x20 ? "public" : "reserved"; // only 2000::/3 is global unicast
}

function parseV6(address: string): number[] {
  let text = address.toLowerCase();
  const tail: number[] = [];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    tail.push(...dotted[1].split(".").map(Number));
    text = text.slice(0, -dotted[1].length) + "0:0";
  }
  const [head, rest] = text.includes("::") ? text.split("::") : [text, null];
  const groups = (s: string) => (s ? s.split(":").map((g) => parseInt(g, 16)) : []);
  const left = groups(head);
  const right = rest === null ? [] : groups(rest);
  const words = [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
  const bytes = words.flatMap((w) => [w >> 8, w & 0xff]);
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}
