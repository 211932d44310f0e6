import { describe, expect, it } from "vitest";
import { nextWait } from "../../src/webhooks/retry-policy.ts";
import { retryAfterMs } from "../../src/webhooks/send.ts";

describe("the webhook retry policy", () => {
  const createdAt = new Date(1_000_000);
  const now = 1_000_000;
  it("doubles the wait each attempt, jittered within its upper half, up to five minutes", () => {
    for (let attempt = 1; attempt <= 12; attempt++) {
      const full = Math.min(1000 * 2 ** (attempt - 1), 300_000);
      for (let i = 0; i < 50; i++) {
        const wait = nextWait({ attempt, baseMs: 1000, retryAfterMs: null, createdAt, windowMs: 86_400_000, now })!;
        expect(wait).toBeGreaterThanOrEqual(full / 2 - 1);
        expect(wait).toBeLessThanOrEqual(full);
      }
    }
  });
  it("takes the subscriber's Retry-After, and stops once the next attempt would fall past the window", () => {
    expect(nextWait({ attempt: 1, baseMs: 1000, retryAfterMs: 7000, createdAt, windowMs: 60_000, now })).toBe(7000);
    expect(nextWait({ attempt: 1, baseMs: 1000, retryAfterMs: 7000, createdAt, windowMs: 5_000, now })).toBeNull();
    const late = now + 59_500;
    const third = { attempt: 3, baseMs: 1000, retryAfterMs: null, createdAt, windowMs: 60_000, now: late };
    expect(nextWait(third)).toBeNull();
  });
  it("reads Retry-After as seconds or as an HTTP date", () => {
    expect(retryAfterMs("3")).toBe(3000);
    expect(retryAfterMs(new Date(Date.now() + 10_000).toUTCString())).toBeGreaterThan(8000);
    expect(retryAfterMs("soon")).toBeNull();
    expect(retryAfterMs(undefined)).toBeNull();
  });
});
