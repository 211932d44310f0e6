/** How a key's lifetime may be written: a duration from now (`90m`, `12h`, `30d`, `4w`) or an ISO 8601 date. */
export const EXPIRY_FORMS = "a duration such as 30d, 12h or 4w, or an ISO 8601 date such as 2027-01-31";

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;
const DURATION = /^(\d{1,6})([mhdw])$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * When a key given `expires` stops working, or a message saying what is wrong with it. A date
 * without a time means the start of that day (UTC); the moment must lie in the future.
 */
export function parseExpiry(expires: string, now = Date.now()): Date | string {
  const text = expires.trim();
  const duration = DURATION.exec(text);
  let at: number;
  if (duration) {
    at = now + Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS];
    if (at === now) return `expiry must be longer than zero, got "${expires}"`;
  } else if (ISO_DATE.test(text) && !Number.isNaN(Date.parse(text))) {
    at = Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text);
  } else {
    return `expiry must be ${EXPIRY_FORMS}, got "${expires}"`;
  }
  if (at <= now) return `expiry must lie in the future, got "${expires}" (${new Date(at).toISOString()})`;
  if (at > Date.UTC(9999, 11, 31)) return `expiry is too far away: "${expires}"`;
  return new Date(at);
}
