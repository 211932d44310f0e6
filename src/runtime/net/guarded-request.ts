import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http, { type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { Readable } from "node:stream";
import { forbiddenAddress, upstreamFailed } from "../errors.ts";
import { classifyAddress } from "./address.ts";

/**
 * HTTP to user-supplied URLs (hooks, custom provider base URLs). Unless private addresses are
 * allowed, the URL must be https and every address its host resolves to must be public. The check
 * runs inside the socket's own DNS lookup, so the address checked is the address connected to
 * (no window for DNS rebinding). Redirects are never followed.
 */
export interface GuardedRequest {
  method: string;
  headers: OutgoingHttpHeaders;
  body?: string | Buffer;
  signal?: AbortSignal;
  allowPrivate: boolean;
  /** Keep-alive connections, for URLs the operator configured; a guarded request always opens its own. */
  agent?: http.Agent;
}

export function checkUrl(url: URL, allowPrivate: boolean): void {
  const schemes = allowPrivate ? ["https:", "http:"] : ["https:"];
  if (!schemes.includes(url.protocol)) {
    throw forbiddenAddress(`Refusing ${url.protocol.replace(":", "")} URL ${url.origin}: only ${allowPrivate ? "http(s)" : "https"} is allowed`);
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!allowPrivate && isIP(host)) assertPublic(url.hostname, host);
}

function assertPublic(hostname: string, address: string): void {
  const kind = classifyAddress(address);
  if (kind !== "public") {
    throw forbiddenAddress(`Refusing to connect to ${hostname} (${address}): ${kind} addresses are not allowed`);
  }
}

function guardedLookup(): LookupFunction {
  return ((hostname: string, options: { family?: number; hints?: number; all?: boolean }, callback: (...args: unknown[]) => void) => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0, hints: options.hints }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error);
      try {
        for (const { address } of addresses) assertPublic(hostname, address);
      } catch (refused) {
        return callback(refused);
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    });
  }) as LookupFunction;
}

export function sendRequest(url: URL, request: GuardedRequest): Promise<IncomingMessage> {
  checkUrl(url, request.allowPrivate);
  const transport = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(url, {
      method: request.method,
      headers: request.headers,
      signal: request.signal,
      ...(request.allowPrivate ? { agent: request.agent ?? false } : { agent: false, lookup: guardedLookup() }),
    }, resolve);
    req.on("error", reject);
    req.end(request.body);
  });
}

/** The most a provider's answer may hold (a whole JSON answer, or everything an event stream sends). */
export const PROVIDER_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

// Connections to the providers the operator configured stay open between calls (not to URLs from user secrets).
const keptAlive: Record<string, http.Agent> = {
  "http:": new http.Agent({ keepAlive: true }),
  "https:": new https.Agent({ keepAlive: true }),
};

/**
 * A `fetch` over `sendRequest` for the AI SDK's provider calls: guarded for a base URL from a user secret,
 * kept alive for the operator's. Node's own fetch costs about twice the CPU of this per call (measured through
 * the AI SDK against a loopback provider: 0.29–0.38 ms a call against 0.15 ms), and an evaluation makes one a
 * testcase. A JSON answer is read whole and handed over in one piece; an event stream passes through as it comes.
 * Either is cut off past `PROVIDER_MAX_RESPONSE_BYTES` (a 502).
 */
export function providerFetch(options: { allowPrivate: boolean; keepAlive: boolean }): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const body = init?.body;
    if (body !== undefined && body !== null && typeof body !== "string") {
      throw new TypeError("providerFetch sends string bodies only");
    }
    const method = init?.method ?? "GET";
    const requestHeaders: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      requestHeaders[name] = value;
    });
    const res = await sendRequest(url, {
      method,
      headers: requestHeaders,
      body: body ?? undefined,
      signal: init?.signal ?? undefined,
      allowPrivate: options.allowPrivate,
      agent: options.keepAlive ? keptAlive[url.protocol] : undefined,
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
    }
    const status = res.statusCode ?? 502;
    const meta = { status, statusText: res.statusMessage, headers };
    if (method === "HEAD" || status === 204 || status === 304) {
      res.resume();
      return new Response(null, meta);
    }
    const tooLarge = () => upstreamFailed(`The provider's answer exceeds ${PROVIDER_MAX_RESPONSE_BYTES} bytes`);
    if (!String(res.headers["content-type"]).startsWith("text/event-stream")) {
      const payload = await readLimited(res, PROVIDER_MAX_RESPONSE_BYTES);
      if (payload === null) throw tooLarge();
      return new Response(payload as Uint8Array<ArrayBuffer>, meta);
    }
    let size = 0;
    res.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > PROVIDER_MAX_RESPONSE_BYTES) res.destroy(tooLarge());
    });
    return new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, meta);
  };
}

/** Reads a response body, destroying the stream as soon as it passes `maxBytes`. */
export async function readLimited(res: IncomingMessage, maxBytes: number): Promise<Buffer | null> {
  if (Number(res.headers["content-length"]) > maxBytes) {
    res.destroy();
    return null;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      res.destroy();
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
