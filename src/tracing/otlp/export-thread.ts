import { parentPort } from "node:worker_threads";
import { HttpError } from "../../errors.ts";
import type { FromExportThread, ToExportThread } from "./export-messages.ts";
import { exportSpanChunks } from "./export-spans.ts";

/*
 * An OTLP thread: decodes and normalises export requests, rolls their spans up and writes their COPY data, off the
 * thread that answers requests and (on the embedded database) runs every query, so that one request's spans are
 * read while the spans of the one before are stored.
 */
const port = parentPort!;
const post = (message: FromExportThread, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

port.on("message", ({ job, body, protobuf, maxInflated, scope, copyBytes }: ToExportThread) => {
  try {
    const read = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
    const { chunks, rejected } = exportSpanChunks(read, protobuf, maxInflated, scope, copyBytes);
    post({ type: "read", job, chunks, rejected }, chunks.map((c) => c.buffer as ArrayBuffer));
  } catch (error) {
    const http = error instanceof HttpError ? error : null;
    post({ type: "failed", job, status: http?.statusCode ?? null, detail: http?.detail ?? null,
      message: error instanceof Error ? error.message : String(error) });
  }
});
