import type { IncomingMessage } from "node:http";
import { WorkflowError } from "../runtime/errors.ts";
import { sendRequest } from "../runtime/net/guarded-request.ts";

/** The most of a subscriber's answer that is read, and the part of it the delivery log keeps. */
const READ_BYTES = 64 * 1024;
const EXCERPT_CHARS = 2000;

/** What one attempt came to: an HTTP status, or an error before one (refused, timed out, address not allowed). */
export interface AttemptOutcome {
  statusCode: number | null;
  /** The subscriber's `Retry-After`, in milliseconds, when it sent one. */
  retryAfterMs: number | null;
  excerpt: string | null;
  error: string | null;
  /** Whether the error is one the same request cannot get past by trying again (an address the guard refuses). */
  refused: boolean;
  latencyMs: number;
}

/** `Retry-After` as seconds or an HTTP date, in milliseconds from now; null when absent or unreadable. */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

async function excerptOf(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= READ_BYTES) {
      res.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString("utf8").slice(0, EXCERPT_CHARS);
}

/**
 * POSTs one attempt through the hooks' URL guard (https only and public addresses unless private hooks are allowed,
 * checked on the address connected to; redirects are not followed): the whole exchange, answer included, within
 * `timeoutMs` or when `signal` aborts.
 */
export async function sendAttempt(url: string, headers: Record<string, string>, body: string, options: {
  timeoutMs: number; allowPrivate: boolean; signal?: AbortSignal;
}): Promise<AttemptOutcome> {
  const started = performance.now();
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  const done = (part: Partial<AttemptOutcome>): AttemptOutcome => ({
    statusCode: null, retryAfterMs: null, excerpt: null, error: null, refused: false,
    latencyMs: Math.round(performance.now() - started), ...part,
  });
  try {
    const res = await sendRequest(new URL(url), {
      method: "POST", headers: { ...headers, "Content-Length": String(Buffer.byteLength(body)) }, body, signal,
      allowPrivate: options.allowPrivate,
    });
    const excerpt = await excerptOf(res);
    const retryAfter = retryAfterMs(res.headers["retry-after"]);
    return done({ statusCode: res.statusCode ?? null, retryAfterMs: retryAfter, excerpt });
  } catch (error) {
    if (timeout.aborted) return done({ error: `Timeout: no complete answer within ${options.timeoutMs} ms` });
    if (error instanceof WorkflowError) return done({ error: error.message, refused: true });
    const code = (error as NodeJS.ErrnoException).code;
    const message = error instanceof Error ? error.message : String(error);
    return done({ error: code && !message.includes(code) ? `${code}: ${message}` : message });
  }
}
