import { expect } from "vitest";
import { WorkflowError } from "../../src/runtime/errors.ts";
import { invokeWorkflow } from "../../src/runtime/invoke.ts";
import type { InvokeRequest } from "../../src/runtime/invoke-request.ts";

/** Runs an invocation that must fail, and returns its WorkflowError for the test to inspect. */
export async function failure(request: InvokeRequest): Promise<WorkflowError> {
  try {
    await invokeWorkflow(request);
  } catch (error) {
    expect(error).toBeInstanceOf(WorkflowError);
    return error as WorkflowError;
  }
  throw new Error(`expected the invocation of ${request.uri} to fail`);
}
