import { AISDKError, APICallError, InvalidArgumentError, InvalidPromptError, NoObjectGeneratedError, NoOutputGeneratedError, RetryError, UnsupportedFunctionalityError } from "ai";
import { ERROR_TYPES, invalidParameters, upstreamFailed, upstreamFlaky, upstreamTimeout, WorkflowError } from "../errors.ts";

/**
 * Provider failures as invoke errors: a rejected key or a rate limit is the caller's to fix (424),
 * any other provider error or an unreachable provider is a bad gateway (502), a timeout is 504. An unreachable
 * provider and a 5xx answer are `transient`: the same call may succeed if made again.
 */
export function providerFailure(error: unknown, provider: string, timeoutMs: number | null): WorkflowError {
  if (timeoutMs !== null) return upstreamTimeout(`Provider '${provider}' did not answer within ${timeoutMs} ms`);
  if (error instanceof WorkflowError) return error;
  if (RetryError.isInstance(error)) return providerFailure(error.lastError, provider, null);
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    if (status === 401 || status === 403) {
      return new WorkflowError(424, ERROR_TYPES.invalidSecrets, `Provider '${provider}' rejected the API key (HTTP ${status}): ${error.message}`);
    }
    if (status === 429) return new WorkflowError(424, ERROR_TYPES.rateLimited, `Provider '${provider}' is rate limiting requests (HTTP 429): ${error.message}`);
    if (status !== undefined) return (status >= 500 ? upstreamFlaky : upstreamFailed)(`Provider '${provider}' answered HTTP ${status}: ${error.message}`);
    return upstreamFlaky(`Provider '${provider}' is unreachable: ${causeMessage(error)}`);
  }
  if (NoObjectGeneratedError.isInstance(error) || NoOutputGeneratedError.isInstance(error)) {
    return upstreamFailed(`Provider '${provider}' returned no usable output: ${error.message}`);
  }
  if (InvalidPromptError.isInstance(error) || InvalidArgumentError.isInstance(error) || UnsupportedFunctionalityError.isInstance(error)) {
    return invalidParameters(error.message);
  }
  if (AISDKError.isInstance(error)) return upstreamFailed(`Provider '${provider}' call failed: ${error.message}`);
  if (error instanceof Error && typeof (error as { code?: unknown }).code === "string") {
    return upstreamFlaky(`Provider '${provider}' is unreachable: ${error.message}`);
  }
  throw error;
}

function causeMessage(error: Error): string {
  const cause = error.cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}
