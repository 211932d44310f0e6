import { createHmac } from "node:crypto";

/** How a delivery proves where it comes from: an HMAC of the body, or the secret itself as `Authorization`. */
export type AuthMode = "signature" | "authorization";

export const USER_AGENT = "Tessera-Webhook/1.0";

// Headers only the sender sets: a subscription's own headers never replace them (nor the framing HTTP relies on).
const SYSTEM_HEADERS = new Set([
  "content-type", "content-length", "host", "user-agent", "x-agenta-event-type", "x-agenta-delivery-id",
  "x-agenta-event-id", "x-agenta-signature", "idempotency-key", "authorization",
  "connection", "transfer-encoding", "te", "upgrade", "keep-alive", "expect", "trailer",
]);
const REDACTED = new Set(["authorization", "x-agenta-signature"]);

export interface SignedRequest {
  headers: Record<string, string>;
  /** The same headers with the secret and the signature hidden, for the delivery log. */
  logged: Record<string, string>;
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, the reference's `X-Agenta-Signature`. */
export function signature(secret: string, body: string, unixSeconds: number): string {
  const v1 = createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex");
  return `t=${unixSeconds},v1=${v1}`;
}

/** Whether a header name is one the sender owns (a subscription's headers may not set it). */
export const isSystemHeader = (name: string): boolean => SYSTEM_HEADERS.has(name.toLowerCase());

/**
 * The headers of one attempt: the subscription's own, minus any the sender owns, then the reference's system
 * headers; the delivery id is the `Idempotency-Key` of every attempt of a delivery.
 */
export function signRequest(input: {
  deliveryId: string; eventId: string; eventType: string; body: string; secret: string; authMode: AuthMode;
  userHeaders: Record<string, string> | null | undefined; now?: number;
}): SignedRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.userHeaders ?? {})) {
    if (!isSystemHeader(name)) headers[name] = value;
  }
  Object.assign(headers, {
    "Content-Type": "application/json",
    "User-Agent": USER_AGENT,
    "X-Agenta-Event-Type": input.eventType,
    "X-Agenta-Delivery-Id": input.deliveryId,
    "X-Agenta-Event-Id": input.eventId,
    "Idempotency-Key": input.deliveryId,
  });
  if (input.authMode === "authorization") headers.Authorization = input.secret;
  else {
    const unixSeconds = Math.floor((input.now ?? Date.now()) / 1000);
    headers["X-Agenta-Signature"] = signature(input.secret, input.body, unixSeconds);
  }
  const logged = Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k, REDACTED.has(k.toLowerCase()) ? "[REDACTED]" : v]),
  );
  return { headers, logged };
}
