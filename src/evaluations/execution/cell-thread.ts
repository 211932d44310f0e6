import { parentPort } from "node:worker_threads";
import { BinaryRows } from "../../db/copy-binary.ts";
import type { RunSandbox } from "../../runtime/code/sandbox.ts";
import { WorkflowError } from "../../runtime/errors.ts";
import { writeTrace } from "../../traces/trace-writer.ts";
import { computeCells } from "./batch-cells.ts";
import type { FromCellThread, SandboxOutcome, ToCellThread } from "./cell-messages.ts";

/*
 * The evaluation thread: invokes the batches the main thread sends it (`computeCells`), many at once, and posts back
 * each batch's cells with its traces as rows of binary COPY, for the main thread to store. Custom code runs in the
 * server's sandbox pool, through the main thread, which owns it.
 */
const port = parentPort!;
const post = (message: FromCellThread, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
const batches = new Map<number, AbortController>();
const sandboxCalls = new Map<number, (outcome: SandboxOutcome) => void>();
let nextCall = 0;

port.on("message", (message: ToCellThread) => {
  if (message.type === "batch") void run(message);
  else if (message.type === "abort") batches.get(message.id)?.abort(new Error(message.message));
  else {
    sandboxCalls.get(message.call)?.(message);
    sandboxCalls.delete(message.call);
  }
});

async function run({ id, work, sandbox }: Extract<ToCellThread, { type: "batch" }>) {
  const controller = new AbortController();
  batches.set(id, controller);
  const rows = new BinaryRows();
  let traces = 0;
  try {
    const computed = await computeCells(work, {
      traces: { add: (scope, trace) => void (writeTrace(rows, scope, trace), traces++) },
      sandbox: sandbox ? viaMain(id) : undefined,
      signal: controller.signal,
    });
    // One buffer, handed over rather than copied: the main thread passes its rows to COPY as they are.
    const written = rows.takeOwned();
    post({ type: "done", id, computed, traces: written, count: traces }, [written.buffer as ArrayBuffer]);
  } catch (error) {
    post({ type: "failed", id, message: error instanceof Error ? error.message : String(error) });
  } finally {
    batches.delete(id);
  }
}

/** Runs custom code for batch `batch` in the main thread's sandbox pool. */
const viaMain = (batch: number): RunSandbox => (script, entries, limits) => new Promise((resolve, reject) => {
  const call = nextCall++;
  sandboxCalls.set(call, (outcome) => {
    if ("result" in outcome) return resolve(outcome.result);
    if ("internal" in outcome) return reject(new Error(outcome.internal));
    const { statusCode, type, message, retryAfterSeconds } = outcome.failure;
    reject(Object.assign(new WorkflowError(statusCode, type, message), retryAfterSeconds ? { retryAfterSeconds } : {}));
  });
  post({ type: "sandbox", call, batch, script, entries, limits });
});
