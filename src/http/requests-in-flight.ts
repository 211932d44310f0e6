import type { Server } from "node:http";

/**
 * The requests an HTTP server is answering, counted on the server itself: every request counts, whichever route (or
 * none) answers it. One counter a server (`requestsInFlight`), with one shared listener a request: it runs on every
 * request, the cached reads included.
 */
export class RequestsInFlight {
  count = 0;
  /** Requests answered (or abandoned) since the server started. */
  answered = 0;
  #waiting: (() => void)[] = [];

  constructor(server: Server) {
    const closed = () => {
      this.answered++;
      if (--this.count === 0 && this.#waiting.length > 0) for (const wake of this.#waiting.splice(0)) wake();
    };
    server.on("request", (_req, res) => {
      this.count++;
      res.on("close", closed);
    });
  }

  /** Resolves once no request is in flight, or after `ms` at the most. */
  readonly quiet = (ms: number): Promise<void> => {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        const at = this.#waiting.indexOf(wake);
        if (at >= 0) this.#waiting.splice(at, 1);
        resolve();
      }, ms);
      this.#waiting.push(wake);
    });
  };
}

const counters = new WeakMap<Server, RequestsInFlight>();

/** The server's counter, made on first use. */
export function requestsInFlight(server: Server): RequestsInFlight {
  let counter = counters.get(server);
  if (!counter) counters.set(server, (counter = new RequestsInFlight(server)));
  return counter;
}
