import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { clientErrorOf } from "../db/client-errors.ts";
import { databaseUnavailable, RETRY_AFTER_SECONDS } from "../db/unavailable.ts";
import { HttpError } from "../errors.ts";
import { isHeaderName } from "../runtime/net/header-text.ts";
import { toIssues } from "./validation.ts";

/**
 * Fastify's own client errors, reworded so that `detail` tells the client what to change. (Empty and
 * malformed JSON bodies are answered by the JSON body parser itself: json-body.ts.)
 */
const FASTIFY_DETAIL: Record<string, (e: FastifyError, request: FastifyRequest) => string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: (_e, request) => `Unsupported content type: ${request.headers["content-type"] ?? "none given"}; send application/json`,
  FST_ERR_CTP_BODY_TOO_LARGE: (_e, request) => `Request body is larger than the limit of ${request.routeOptions.bodyLimit} bytes (TESSERA_BODY_LIMIT)`,
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => "Content-Length does not match the body",
};

/**
 * Drops response headers that HTTP cannot carry. The error such a header raised would otherwise be
 * raised again by the error's own answer, and Fastify would answer in its own shape instead of `{detail}`.
 */
function dropUnsendableHeaders(reply: FastifyReply): void {
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    const values = Array.isArray(value) ? value : [value];
    if (!isHeaderName(name) || values.some((v) => v !== undefined && !isSendable(String(v)))) reply.removeHeader(name);
  }
}

// What Node itself accepts in a header value (it refuses the rest with ERR_INVALID_CHAR).
const isSendable = (value: string) => /^[\t\x20-\x7e\x80-\xff]*$/.test(value);

// What a stream reports when the connection it was reading from or writing to closed under it.
const CLOSED_UNDER_IT = new Set([
  "ERR_STREAM_PREMATURE_CLOSE", "ERR_STREAM_DESTROYED", "ECONNRESET", "EPIPE", "ABORT_ERR",
]);

/**
 * A client that went away (navigated off, cancelled, timed out) before its answer was sent: the streams
 * serving it end with a "premature close" or a reset. Nothing can be answered and nothing failed here.
 */
function clientWentAway(error: FastifyError, request: FastifyRequest): boolean {
  return request.raw.socket?.destroyed === true && error.code !== undefined && CLOSED_UNDER_IT.has(error.code);
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError & { detail?: unknown }, request, reply) => {
    if (clientWentAway(error, request)) {
      request.log.info({ reason: error.message }, "client closed the connection before its answer was sent");
      return;
    }
    dropUnsendableHeaders(reply);
    if (error instanceof HttpError) return reply.status(error.statusCode).send({ detail: error.detail });
    if (error.validation) return reply.status(422).send({ detail: toIssues(error.validation as never, error.validationContext ?? "body") });
    const pg = clientErrorOf(error);
    if (pg) return reply.status(pg[0]).send({ detail: pg[1] });
    const unavailable = databaseUnavailable(error);
    if (unavailable) {
      request.log.warn({ reason: unavailable }, "database unavailable");
      reply.header("retry-after", String(RETRY_AFTER_SECONDS));
      return reply.status(503).send({ detail: `Database unavailable: ${unavailable}; retry in a few seconds` });
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const explain = error.code ? FASTIFY_DETAIL[error.code] : undefined;
      const detail = explain ? explain(error, request) : error instanceof SyntaxError ? `Malformed JSON body: ${error.message}` : error.message;
      return reply.status(status).send({ detail });
    }
    request.log.error({ err: error }, "unhandled error");
    return reply.status(status >= 500 ? status : 500).send({ detail: "Internal server error" });
  });

  app.setNotFoundHandler(notFoundHandler);
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply): void {
  reply.status(404).send({ detail: `Not found: ${request.method} ${request.url.split("?")[0]}` });
}

/** Fastify answers an undecodable or overlong URL before routing, outside the error handler; this keeps the `{detail}` shape. */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  dropUnsendableHeaders(reply);
  reply.status(error.statusCode ?? 400).send({ detail: error.message });
}
