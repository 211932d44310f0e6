/** The server answered with an error status; `detail` is the server's own explanation (a string, or 422 issues). */
export class TesseraError extends Error {
  readonly status: number;
  readonly detail: unknown;
  readonly method: string;
  readonly path: string;

  constructor(status: number, detail: unknown, method: string, path: string) {
    super(`${method} ${path} → ${status}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
    this.name = "TesseraError";
    this.status = status;
    this.detail = detail;
    this.method = method;
    this.path = path;
  }
}

/** The server could not be reached (refused, reset, DNS, or no answer within `timeoutMs`). */
export class TesseraNetworkError extends Error {
  readonly method: string;
  readonly url: string;

  constructor(method: string, url: string, cause: unknown) {
    super(`${method} ${url}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "TesseraNetworkError";
    this.method = method;
    this.url = url;
  }
}

/** Whether a failure means "the server is not there right now", when cached or fallback values may stand in. */
export const isUnavailable = (error: unknown): boolean =>
  error instanceof TesseraNetworkError || (error instanceof TesseraError && (error.status === 502 || error.status === 503 || error.status === 504));
