import { HttpError } from "../errors.ts";
import type { TraceRecord } from "./trace.ts";

const DOCS = "https://docs.tessera.dev/errors";

/** The fixed set of `status.type` values an invoke failure can carry; clients may switch on them. */
export const ERROR_TYPES = {
  invalidInputs: `${DOCS}#v0:schemas:invalid-inputs`,
  invalidParameters: `${DOCS}#v0:schemas:invalid-parameters`,
  invalidSecrets: `${DOCS}#v0:schemas:invalid-secrets`,
  forbiddenAddress: `${DOCS}#v0:network:forbidden-address`,
  rateLimited: `${DOCS}#v0:upstream:rate-limited`,
  upstreamFailed: `${DOCS}#v0:upstream:failed`,
  upstreamTimeout: `${DOCS}#v0:upstream:timeout`,
  codeFailed: `${DOCS}#v0:code:failed`,
  codeTimeLimit: `${DOCS}#v0:code:time-limit`,
  codeMemoryLimit: `${DOCS}#v0:code:memory-limit`,
  codeBusy: `${DOCS}#v0:code:busy`,
  templateLimit: `${DOCS}#v0:templates:limit`,
  mockError: `${DOCS}#v0:workflows:mock-error`,
  internal: `${DOCS}#v0:runtime:internal`,
} as const;

export type ErrorType = (typeof ERROR_TYPES)[keyof typeof ERROR_TYPES];

/**
 * A failed invocation. `statusCode` and `type` go into the envelope's `status`; `trace` is attached
 * by the orchestrator so a failure can still be answered with (and stored under) its trace ids.
 */
export class WorkflowError extends HttpError {
  readonly type: ErrorType;
  trace?: TraceRecord;
  /** Seconds after which trying again may succeed, sent as `Retry-After` (429s). */
  retryAfterSeconds?: number;
  /** The same call may well succeed if made again: the service was unreachable or answered a 5xx. */
  transient = false;

  constructor(statusCode: number, type: ErrorType, message: string) {
    super(statusCode, message);
    this.name = "WorkflowError";
    this.type = type;
  }
}

export const invalidInputs = (message: string) => new WorkflowError(400, ERROR_TYPES.invalidInputs, message);
export const invalidParameters = (message: string) => new WorkflowError(400, ERROR_TYPES.invalidParameters, message);
export const invalidSecrets = (message: string) => new WorkflowError(400, ERROR_TYPES.invalidSecrets, message);
export const forbiddenAddress = (message: string) => new WorkflowError(400, ERROR_TYPES.forbiddenAddress, message);
export const upstreamFailed = (message: string) => new WorkflowError(502, ERROR_TYPES.upstreamFailed, message);
/** An upstream failure that trying again may cure (a connection refused or reset, a 5xx answer). */
export const upstreamFlaky = (message: string) => Object.assign(upstreamFailed(message), { transient: true });
export const upstreamTimeout = (message: string) => new WorkflowError(504, ERROR_TYPES.upstreamTimeout, message);
export const codeFailed = (message: string) => new WorkflowError(422, ERROR_TYPES.codeFailed, message);
/** A prompt whose templates would render past TESSERA_TEMPLATE_MAX_BYTES or TESSERA_TEMPLATE_MAX_STEPS. */
export const templateLimit = (message: string) => new WorkflowError(400, ERROR_TYPES.templateLimit, message);

/** Anything thrown that is not already a WorkflowError is our bug: answer 500 without leaking internals. */
export function toWorkflowError(error: unknown): WorkflowError {
  if (error instanceof WorkflowError) return error;
  const failure = new WorkflowError(500, ERROR_TYPES.internal, "The runtime failed unexpectedly");
  failure.cause = error; // for the server's log, never for the client
  return failure;
}
