/** The longest wait between two attempts of a delivery. */
const MAX_WAIT_MS = 5 * 60_000;

/** Whether an answer is worth another attempt: a server error, a 429 or a 408; other answers are final. */
export const isRetryableStatus = (status: number): boolean => status >= 500 || status === 429 || status === 408;

/**
 * How long to wait before attempt `attempt + 1`: the subscriber's `Retry-After` when it gave one, else
 * `baseMs · 2^(attempt-1)` with full jitter over its upper half (so subscribers that failed together do not come
 * back together), at most five minutes. Null once that attempt would start past the delivery's retry window.
 */
export function nextWait(input: {
  attempt: number; baseMs: number; retryAfterMs: number | null; createdAt: Date; windowMs: number; now?: number;
}): number | null {
  const exponential = Math.min(input.baseMs * 2 ** (input.attempt - 1), MAX_WAIT_MS);
  const jittered = exponential / 2 + Math.random() * (exponential / 2);
  const wait = Math.round(input.retryAfterMs !== null ? Math.min(input.retryAfterMs, MAX_WAIT_MS) : jittered);
  const now = input.now ?? Date.now();
  return now + wait - input.createdAt.getTime() > input.windowMs ? null : wait;
}
