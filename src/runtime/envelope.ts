import { toWorkflowError, type WorkflowError } from "./errors.ts";
import { newSpanId, newTraceId } from "./trace.ts";

/** The invoke response envelope of the reference runtime. */
export const INVOKE_VERSION = "2025.07.14";

export interface TraceIds {
  traceId: string;
  spanId: string;
}

export interface SuccessEnvelope {
  version: string;
  status: { code: 200; message: "Success" };
  trace_id: string;
  span_id: string;
  session_id?: string;
  data: { outputs: unknown };
}

export interface FailureEnvelope {
  version: string;
  status: { code: number; type: string; message: string };
  trace_id: string;
  span_id: string;
  session_id?: string;
}

export function successEnvelope(outputs: unknown, ids: TraceIds, sessionId?: string): SuccessEnvelope {
  return {
    version: INVOKE_VERSION,
    status: { code: 200, message: "Success" },
    trace_id: ids.traceId,
    span_id: ids.spanId,
    ...(sessionId && { session_id: sessionId }),
    data: { outputs },
  };
}

/** The failure envelope; ids default to the error's own trace, or fresh ones if it has none. */
export function failureEnvelope(error: unknown, ids?: TraceIds, sessionId?: string): FailureEnvelope {
  const failure: WorkflowError = toWorkflowError(error);
  const trace = ids ?? failure.trace ?? { traceId: newTraceId(), spanId: newSpanId() };
  return {
    version: INVOKE_VERSION,
    status: { code: failure.statusCode, type: failure.type, message: failure.message },
    trace_id: trace.traceId,
    span_id: trace.spanId,
    ...(sessionId && { session_id: sessionId }),
  };
}

export function envelopeHeaders(ids: TraceIds, sessionId?: string): Record<string, string> {
  return {
    "x-ag-version": INVOKE_VERSION,
    "x-ag-trace-id": ids.traceId,
    "x-ag-span-id": ids.spanId,
    ...(sessionId && { "x-ag-session-id": sessionId }),
    traceparent: `00-${ids.traceId}-${ids.spanId}-01`,
  };
}
