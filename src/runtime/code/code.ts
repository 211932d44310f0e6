import { codeFailed, invalidParameters } from "../errors.ts";
import { DEFAULT_SANDBOX_LIMITS, runInSandbox, type RunSandbox, type SandboxLimits } from "./sandbox.ts";

export interface CodeCall {
  script: unknown;
  runtime?: unknown;
  inputs: Record<string, unknown>;
  parameters: Record<string, unknown>;
  outputs?: unknown;
  trace?: unknown;
  limits?: Partial<SandboxLimits>;
  /** Where the script runs: the server's sandbox pool; this thread when absent. */
  sandbox?: RunSandbox;
}

export interface CodeResult {
  outputs: unknown;
  entry: "run" | "evaluate";
}

const JAVASCRIPT = new Set(["javascript", "js"]);

/**
 * Custom code: an evaluator defines `evaluate(inputs, output, trace, parameters)`, an application
 * defines `run(inputs, parameters)`; `evaluate` wins when both exist. An evaluator's boolean becomes
 * `{success}`, its number `{score, success: score >= threshold}`; anything else passes through.
 */
export async function runCode(call: CodeCall): Promise<CodeResult> {
  if (typeof call.script !== "string" || call.script.trim() === "") throw invalidParameters("Custom code needs a script");
  if (call.runtime !== undefined && call.runtime !== null && !JAVASCRIPT.has(String(call.runtime).toLowerCase())) {
    throw invalidParameters(`Unsupported code runtime '${String(call.runtime)}': only javascript is available`);
  }
  const limits = { ...DEFAULT_SANDBOX_LIMITS, ...call.limits };
  const result = await (call.sandbox ?? runInSandbox)(call.script, [
    { entry: "evaluate", args: [call.inputs, call.outputs ?? null, call.trace ?? null, call.parameters] },
    { entry: "run", args: [call.inputs, call.parameters] },
  ], limits);
  if (!result) throw codeFailed("The script defines neither run(inputs, parameters) nor evaluate(inputs, output, trace)");
  if (result.entry === "run") return { outputs: result.value, entry: "run" };
  return { outputs: evaluation(result.value, call.parameters.threshold), entry: "evaluate" };
}

function evaluation(value: unknown, threshold: unknown): unknown {
  if (typeof value === "boolean") return { success: value };
  if (typeof value !== "number") return value;
  const bar = typeof threshold === "number" ? threshold : 0.5;
  return { score: value, success: value >= bar };
}
