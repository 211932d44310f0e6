import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { AppContext } from "../../context.ts";
import { HttpError, tooLarge } from "../../errors.ts";
import { documentationOnly } from "../../http/openapi.ts";
import { storeSpanChunks } from "../spans.ts";
import { ExportPool } from "./export-pool.ts";
import { encodeExportResponse, encodeStatus } from "./protobuf.ts";

const PROTOBUF = "application/x-protobuf";
/** A body may inflate to this many times the raw limit. */
const INFLATION = 8;

const isProtobuf = (request: FastifyRequest) => /protobuf/i.test(String(request.headers["content-type"] ?? ""));

const ReadyAnswer = Type.Object({ status: Type.String() });
const JsonExportAnswer = Type.Object({
  partialSuccess: Type.Optional(Type.Object({ rejectedSpans: Type.String(), errorMessage: Type.String() })),
});

/**
 * Errors of an OTLP request in protobuf are answered as a protobuf `google.rpc.Status` (OTLP/HTTP's error
 * body); those of an OTLP/JSON request in the usual `{detail}`.
 */
function otlpErrors(limit: number) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const failure = error.code === "FST_ERR_CTP_BODY_TOO_LARGE"
      ? tooLarge(`OTLP batch size exceeds ${limit} bytes (TESSERA_OTLP_MAX_BYTES)`)
      : error;
    if (!isProtobuf(request)) throw failure;
    const status = failure.statusCode ?? (error.validation ? 400 : 500);
    if (status >= 500) request.log.error({ err: error }, "OTLP ingestion failed");
    const message = failure instanceof HttpError && typeof failure.detail === "string" ? failure.detail
      : status >= 500 ? "Failed to store spans." : failure.message;
    return reply.status(status).type(PROTOBUF).send(Buffer.from(encodeStatus(message)));
  };
}

/** `POST /otlp/v1/traces` (OTLP/HTTP, protobuf or JSON, gzip or zlib by magic bytes) and its readiness `GET`. */
export async function otlpRoutes(app: FastifyInstance, ctx: AppContext) {
  const limit = ctx.config.otlpMaxBytes;
  const pool = new ExportPool(ctx.config.otlpWorkers);
  app.addHook("onClose", () => pool.close());
  // This context reads bodies whole: protobuf as it came, JSON too, since it may be compressed.
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser(
    ["application/json", PROTOBUF, "application/protobuf"],
    { parseAs: "buffer", bodyLimit: limit },
    (_request, body, done) => done(null, body),
  );

  app.get("/otlp/v1/traces", {
    schema: {
      tags: ["Observability"], summary: "Whether the OTLP endpoint accepts traces", response: { 200: ReadyAnswer },
    },
  }, async () => ({ status: "ready" }));

  app.post("/otlp/v1/traces", {
    bodyLimit: limit,
    errorHandler: otlpErrors(limit),
    schema: {
      tags: ["Observability"],
      summary: "Ingest traces over OTLP/HTTP (protobuf or JSON)",
      description: "An `ExportTraceServiceRequest` as `application/x-protobuf` or `application/json`, gzip or " +
        `zlib compressed or not (told by its first bytes), at most ${limit} bytes as sent ` +
        "(`TESSERA_OTLP_MAX_BYTES`, 413). " +
        "Spans that cannot be read are left out and counted in `partialSuccess`; the others are stored before the " +
        "answer. Errors of a protobuf request are a protobuf `google.rpc.Status`.",
    },
    config: documentationOnly({
      consumes: [PROTOBUF, "application/json"],
      response: {
        200: {
          description: "Stored: an `ExportTraceServiceResponse` in the request's encoding",
          content: {
            [PROTOBUF]: { schema: { type: "string", format: "binary" } },
            "application/json": { schema: JsonExportAnswer },
          },
        },
      },
    }),
  }, async (req, reply) => {
    const protobuf = isProtobuf(req);
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const { chunks, rejected } = await pool.read(body, protobuf, limit * INFLATION, req.scope, ctx.db.copyBytes);
    await storeSpanChunks(ctx.db, chunks);
    const message = rejected > 0 ? `${rejected} span(s) could not be read and were left out` : "";
    if (rejected > 0) req.log.warn({ rejected }, "OTLP spans left out");
    if (protobuf) return reply.type(PROTOBUF).send(Buffer.from(encodeExportResponse(rejected, message)));
    return rejected > 0 ? { partialSuccess: { rejectedSpans: String(rejected), errorMessage: message } } : {};
  });
}
