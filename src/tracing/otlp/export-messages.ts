import type { Scope } from "../../accounts/scope.ts";

/** What the main thread sends an OTLP thread (export-thread.ts): one export request's body and how to store it. */
export interface ToExportThread {
  job: number;
  body: Uint8Array;
  protobuf: boolean;
  maxInflated: number;
  scope: Scope;
  copyBytes: number | undefined;
}

/** What an OTLP thread answers: the spans' binary COPY chunks, or the failure the request is answered with. */
export type FromExportThread =
  | { type: "read"; job: number; chunks: Uint8Array[]; rejected: number }
  | { type: "failed"; job: number; status: number | null; detail: unknown; message: string };
