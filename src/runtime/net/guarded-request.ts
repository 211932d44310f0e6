import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http, { type IncomingHttpHeaders, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import https from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { Readable } from "node:stream";
import { Agent, type Dispatcher, request as undiciRequest } from "undici";
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
      agent: false,
      ...(request.allowPrivate ? {} : { lookup: guardedLookup() }),
    }, resolve);
    req.on("error", reject);
    req.end(request.body);
  });
}

/** The most a provider's answer may hold (a whole JSON answer, or everything an event stream sends). */
export const PROVIDER_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/**
 * Connections to the providers the operator configured stay open between calls (not to URLs from user secrets),
 * through undici's client: over a loop-back provider it took 72–118 µs of CPU a call against 131–179 µs for
 * node:http with a keep-alive agent (20,000 calls, 16 at a time), and an evaluation makes one a testcase.
 */
const keptAlive = new Agent({ keepAliveTimeout: 30_000 });

interface Answer {
  status: number;
  statusText: string | undefined;
  headers: IncomingHttpHeaders;
  body: Readable;
}

/** A provider call as the AI SDK makes it. */
interface ProviderRequest {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

async function keptAliveRequest(url: URL, request: ProviderRequest): Promise<Answer> {
  checkUrl(url, true);
  const res = await undiciRequest(url, {
    ...request, method: request.method as Dispatcher.HttpMethod, dispatcher: keptAlive,
  });
  return { status: res.statusCode, statusText: res.statusText, headers: res.headers, body: res.body };
}

async function guardedRequest(url: URL, request: GuardedRequest): Promise<Answer> {
  const res = await sendRequest(url, request);
  return { status: res.statusCode ?? 502, statusText: res.statusMessage, headers: res.headers, body: res };
}

/**
 * A `fetch` for the AI SDK's provider calls: guarded for a base URL from a user secret (`sendRequest`), kept alive
 * for the operator's. Node's own fetch costs two to four times the CPU of either per call (0.29–0.40 ms a call
 * against a loop-back provider), and an evaluation makes one a testcase. A JSON answer is read whole and handed
 * over in one piece; an event stream passes through as it comes. Either is cut off past
 * `PROVIDER_MAX_RESPONSE_BYTES` (a 502).
 */
export function providerFetch(options: { allowPrivate: boolean; keepAlive: boolean }): typeof fetch {
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const body = init?.body;
    if (body !== undefined && body !== null && typeof body !== "string") {
      throw new TypeError("providerFetch sends string bodies only");
    }
    const method = init?.method ?? "GET";
    const request: ProviderRequest = {
      method, headers: headerRecord(init?.headers), body: body ?? undefined, signal: init?.signal ?? undefined,
    };
    const res = options.keepAlive ? await keptAliveRequest(url, request)
      : await guardedRequest(url, { ...request, allowPrivate: options.allowPrivate });
    const headers = new Headers();
    for (const name in res.headers) {
      const value = res.headers[name];
      for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
    }
    const status = res.status;
    const meta = { status, statusText: res.statusText, headers };
    if (method === "HEAD" || status === 204 || status === 304) {
      res.body.resume();
      return new Response(null, meta);
    }
    const tooLarge = () => upstreamFailed(`The provider's answer exceeds ${PROVIDER_MAX_RESPONSE_BYTES} bytes`);
    if (!String(res.headers["content-type"]).startsWith("text/event-stream")) {
      const payload = await readLimited(res.body, PROVIDER_MAX_RESPONSE_BYTES, res.headers);
      if (payload === null) throw tooLarge();
      return new Response(payload as Uint8Array<ArrayBuffer>, meta);
    }
    let size = 0;
    res.body.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > PROVIDER_MAX_RESPONSE_BYTES) res.body.destroy(tooLarge());
    });
    return new Response(Readable.toWeb(res.body) as ReadableStream<Uint8Array>, meta);
  };
}

/** A request's headers as a record: the AI SDK gives a plain object (an entry may be undefined). */
function headerRecord(init: HeadersInit | undefined): Record<string, string> {
  const record: Record<string, string> = {};
  if (init === undefined || init instanceof Headers || Array.isArray(init)) {
    new Headers(init).forEach((value, name) => {
      record[name] = value;
    });
    return record;
  }
  for (const name in init) {
    const value = (init as Record<string, string | undefined>)[name];
    if (value !== undefined) record[name.toLowerCase()] = value;
  }
  return record;
}

/** Reads a response body, destroying the stream as soon as it passes `maxBytes`. */
export async function readLimited(
  res: Readable, maxBytes: number, headers = (res as IncomingMessage).headers,
): Promise<Buffer | null> {
  if (Number(headers["content-length"]) > maxBytes) {
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
