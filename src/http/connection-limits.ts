import type { FastifyBaseLogger, FastifyHttpOptions } from "fastify";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Config } from "../config.ts";

type Limits = Pick<Config, "headersTimeoutMs" | "bodyTimeoutMs" | "keepAliveTimeoutMs">;

/** A whole answer written on the socket itself: the request never reached (or has left) Fastify's reply. */
function rawAnswer(status: 400 | 408 | 431, reason: string, detail: string): string {
  const body = JSON.stringify({ detail });
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

function answerAndClose(socket: Socket, answer: string): void {
  if (socket.writable) socket.write(answer);
  socket.destroy();
}

/**
 * The server's time limits, in the Fastify options: Node's headers timeout (its connection check runs
 * often enough for the limit to be kept within a quarter of it), the keep-alive timeout, and a client
 * error handler that answers in the `{detail}` shape and names the limit. Node's total request timeout
 * stays off: the body's limit is its inactivity (`limitBodyIdle`), so a large upload on a slow link
 * is never cut while its bytes keep coming.
 */
export function connectionOptions(limits: Limits): Partial<FastifyHttpOptions<Server>> {
  const checkEvery = Math.min(30_000, Math.max(100, Math.floor(limits.headersTimeoutMs / 4)));
  return {
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: 0,
    http: { connectionsCheckingInterval: checkEvery },
    clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket) {
      if (error.code === "ECONNRESET" || socket.destroyed) return;
      if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") {
        const detail = `The request headers did not arrive within ${limits.headersTimeoutMs} ms`;
        return answerAndClose(socket, rawAnswer(408, "Request Timeout", `${detail} (TESSERA_HEADERS_TIMEOUT_MS)`));
      }
      if (error.code === "HPE_HEADER_OVERFLOW") {
        const detail = "The request headers are too large";
        return answerAndClose(socket, rawAnswer(431, "Request Header Fields Too Large", detail));
      }
      answerAndClose(socket, rawAnswer(400, "Bad Request", "Malformed HTTP request"));
    },
  };
}

/** Settings Fastify has no option for, on its HTTP server. */
export function applyServerLimits(server: Server, limits: Limits): void {
  server.headersTimeout = limits.headersTimeoutMs;
}

/**
 * A request body that stops arriving for `bodyTimeoutMs` is answered 408 (unless an answer has begun)
 * and its connection closed: without this a stalled upload holds its socket, its buffers and the
 * request in flight forever. The timer is the socket's inactivity timer, disarmed when it finds the body
 * complete. A body the server itself has stopped reading (its buffer holds unread bytes) is not a
 * stalled client: the timer is armed again.
 */
export function limitBodyIdle(server: Server, bodyTimeoutMs: number, log: FastifyBaseLogger): void {
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    // A body that came with its headers (most small requests) is parsed after this event, in the same read:
    // checked on the next turn of the event loop, such a request arms no timer and adds no listener.
    if (!req.complete) setImmediate(armBodyTimer, req, res);
  });

  function armBodyTimer(req: IncomingMessage, res: ServerResponse): void {
    if (req.complete || req.socket === null || req.socket.destroyed) return;
    const socket = req.socket;
    req.setTimeout(bodyTimeoutMs, () => {
      if (req.complete || socket.destroyed) return;
      if (req.readableLength > 0) return void socket.setTimeout(bodyTimeoutMs);
      log.info({ url: req.url, timeoutMs: bodyTimeoutMs }, "request body stalled: closed (TESSERA_BODY_TIMEOUT_MS)");
      if (res.headersSent) return void socket.destroy();
      const quiet = `nothing came for ${bodyTimeoutMs} ms (TESSERA_BODY_TIMEOUT_MS)`;
      answerAndClose(socket, rawAnswer(408, "Request Timeout", `The request body stopped arriving: ${quiet}`));
    });
    // Node emits the request's timeout only while its body is incomplete, the answer's always: once the body
    // is in, the socket's quiet time is the handler's (or keep-alive's), which this limit leaves alone.
    res.on("timeout", () => {
      if (req.complete && !socket.destroyed) socket.setTimeout(0);
    });
  }
}
