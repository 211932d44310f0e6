/**
 * A time as the reference reads one: ISO 8601, or a number (or digits) of seconds, milliseconds, microseconds
 * or nanoseconds told apart by their count of digits (10, 13, 16, 19); an ISO time with no zone is UTC. Null
 * for anything else.
 */
export function timestampOf(value: unknown): string | null {
  const count = (typeof value === "number" && Number.isSafeInteger(value) && value >= 0)
    || (typeof value === "string" && /^\d+$/.test(value));
  if (count) {
    const digits = String(value).length;
    const micros = digits === 10 ? BigInt(value) * 1_000_000n
      : digits === 13 ? BigInt(value) * 1000n
      : digits === 16 ? BigInt(value)
      : digits === 19 ? BigInt(value) / 1000n
      : null;
    if (micros === null) return null;
    const rest = String(micros % 1_000_000n).padStart(6, "0");
    return new Date(Number(micros / 1000n)).toISOString().replace(/\.\d{3}Z$/, `.${rest}Z`);
  }
  if (typeof value !== "string") return null;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return `${value}T00:00:00Z`;
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(value) ? value : `${value}Z`;
  return Number.isNaN(Date.parse(zoned)) ? null : zoned;
}
