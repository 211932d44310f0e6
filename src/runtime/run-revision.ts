import type { Scope } from "../accounts/scope.ts";
import type { WorkflowData } from "../kinds/workflows.ts";
import type { InvocationRecord, TraceStatus } from "../traces/traces.ts";
import { invalidParameters, toWorkflowError, type WorkflowError } from "./errors.ts";
import type { InvokeRequest } from "./invoke-request.ts";
import { invokeWorkflow } from "./invoke.ts";
import { newSpanId, newTraceId, type Span } from "./trace.ts";

/** Where an invocation's trace goes: the server's trace writer, or a batch's list on the evaluation thread. */
export interface TraceSink {
  add(scope: Scope, trace: InvocationRecord): void;
}

/** One invocation of a stored workflow revision by the server itself (an evaluation step), traced like a client's. */
export interface RevisionCall {
  scope: Scope;
  data: WorkflowData;
  /** The revision, as a trace records it: `{application: {id, slug}, application_revision: {id, slug, version}}`. */
  references: Record<string, unknown>;
  inputs: Record<string, unknown>;
  outputs?: unknown;
  testcase?: unknown;
  options: Pick<InvokeRequest, "secrets" | "allowPrivateHooks" | "sandbox" | "limits">;
}

export type RevisionOutcome =
  | { ok: true; outputs: unknown; traceId: string }
  | { ok: false; error: WorkflowError; traceId: string };

/** Runs the revision through the hosted runtime and records its trace; a failure is an outcome, never a throw. */
export async function runRevision(traces: TraceSink | undefined, call: RevisionCall): Promise<RevisionOutcome> {
  const ids = { traceId: newTraceId(), spanId: newSpanId() };
  const started = performance.now();
  const record = (status: TraceStatus, outputs: unknown, usage: unknown, spans: Span[]) =>
    traces?.add(call.scope, {
      traceId: ids.traceId, spanId: ids.spanId, references: call.references, inputs: call.inputs, outputs, status,
      latencyMs: performance.now() - started, usage: usage ?? null, spans,
    });
  try {
    if (!call.data.uri) throw invalidParameters("The revision has no data.uri: nothing to run");
    const result = await invokeWorkflow({
      uri: call.data.uri, url: call.data.url, headers: call.data.headers, script: call.data.script, runtime: call.data.runtime,
      parameters: call.data.parameters ?? {}, inputs: call.inputs, outputs: call.outputs, testcase: call.testcase,
      traceIds: ids, ...call.options,
    });
    record({ code: 200 }, result.outputs, result.usage, result.spans);
    return { ok: true, outputs: result.outputs, traceId: ids.traceId };
  } catch (caught) {
    const error = toWorkflowError(caught);
    record({ code: error.statusCode, type: error.type, message: error.message }, null, null, error.trace?.spans ?? []);
    return { ok: false, error, traceId: ids.traceId };
  }
}
