import { TesseraError, TesseraNetworkError } from "./errors.ts";

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  fetch?: typeof globalThis.fetch;
  /** Per request, including reading the body. Default 10 s. */
  timeoutMs?: number;
}

export interface RequestOptions {
  /** A JSON value, or a ready body (FormData, stream) sent as is. */
  body?: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string | undefined>;
  /** Statuses that are answers rather than errors (304 for revalidation). */
  accept?: number[];
}

const isRawBody = (body: unknown) =>
  typeof FormData !== "undefined" && body instanceof FormData || typeof ReadableStream !== "undefined" && body instanceof ReadableStream ||
  typeof Blob !== "undefined" && body instanceof Blob;

/** fetch with the project's key, a timeout, and the server's `{detail}` errors turned into TesseraError. */
export class Transport {
  readonly baseUrl: string;
  readonly authorization: string;
  readonly timeoutMs: number;
  readonly #fetch: typeof globalThis.fetch;

  constructor(options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.authorization = `ApiKey ${options.apiKey}`;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    // Bound to globalThis: browsers throw "Illegal invocation" when fetch is called as a method of another object.
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** `path` is relative to the base URL (`/api/...`) or an absolute URL (an application's `data.url`). */
  async send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    let url = /^https?:\/\//.test(path) ? path : this.baseUrl + path;
    if (options.query) {
      const q = Object.entries(options.query).filter((e): e is [string, string] => e[1] !== undefined);
      if (q.length) url += `?${new URLSearchParams(q)}`;
    }
    const headers: Record<string, string> = { authorization: this.authorization, ...options.headers };
    let body: BodyInit | undefined;
    if (options.body !== undefined) {
      if (isRawBody(options.body)) body = options.body as BodyInit;
      else {
        headers["content-type"] = "application/json";
        body = JSON.stringify(options.body);
      }
    }
    const init: RequestInit & { duplex?: "half" } = { method, headers, body, signal: AbortSignal.timeout(this.timeoutMs) };
    // Streaming request bodies must say so (Node's fetch and the Fetch standard).
    if (typeof ReadableStream !== "undefined" && body instanceof ReadableStream) init.duplex = "half";
    let res: Response;
    try {
      res = await this.#fetch(url, init);
    } catch (error) {
      throw new TesseraNetworkError(method, url, error);
    }
    if (res.ok || options.accept?.includes(res.status)) return res;
    throw new TesseraError(res.status, await detailOf(res), method, path);
  }

  /** The parsed JSON answer (undefined for an empty body, e.g. 304). */
  async json<T>(method: string, path: string, options: RequestOptions = {}): Promise<{ status: number; headers: Headers; body: T }> {
    const res = await this.send(method, path, options);
    let text: string;
    try {
      text = await res.text();
    } catch (error) {
      throw new TesseraNetworkError(method, path, error);
    }
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as T };
  }
}

async function detailOf(res: Response): Promise<unknown> {
  const text = await res.text().catch(() => "");
  try {
    const parsed = JSON.parse(text);
    return parsed && typeof parsed === "object" && "detail" in parsed ? parsed.detail : parsed;
  } catch {
    return text || res.statusText;
  }
}
