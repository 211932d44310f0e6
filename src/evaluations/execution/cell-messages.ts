import type { ErrorType } from "../../runtime/errors.ts";
import type { EntryPoint, SandboxLimits, SandboxResult } from "../../runtime/code/sandbox.ts";
import type { BatchCells, BatchWork } from "./batch-cells.ts";

/** What the main thread sends the evaluation thread: a batch to invoke, its abort, or a sandbox run's outcome. */
export type ToCellThread =
  | { type: "batch"; id: number; work: BatchWork; sandbox: boolean }
  | { type: "abort"; id: number; message: string }
  | ({ type: "sandbox"; call: number } & SandboxOutcome);

/**
 * What the evaluation thread answers: a batch's cells and its `count` traces (rows of binary COPY, whose buffer is
 * transferred), its failure, or custom code to run.
 */
export type FromCellThread =
  | { type: "done"; id: number; computed: BatchCells; traces: Uint8Array; count: number }
  | { type: "failed"; id: number; message: string }
  | { type: "sandbox"; call: number; batch: number; script: string; entries: EntryPoint[]; limits: SandboxLimits };

/** A sandbox run as it crosses threads: its result, the script's failure (a WorkflowError's parts), or our own bug. */
export type SandboxOutcome =
  | { result: SandboxResult | null }
  | { failure: { statusCode: number; type: ErrorType; message: string; retryAfterSeconds?: number } }
  | { internal: string };
