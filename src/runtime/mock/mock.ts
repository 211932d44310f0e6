import { ERROR_TYPES, invalidParameters, WorkflowError } from "../errors.ts";

/*
 * The reference's deterministic test workflow (`agenta:custom:mock:v0`): no model, no sandbox. One handler
 * stands in for an application (`echo`, `static`, `messages` return outputs) and for an evaluator (`pass`,
 * `fail`, `score`, `reflect` return `{score, success}`); `error` fails and `delay` waits, then behaves as `then`.
 * Parameters are `{key: <behaviour>, kwargs: {...}}`.
 */

/** The longest `delay` the mock waits when the server sets no cap (TESSERA_MOCK_MAX_DELAY_MS). */
export const MOCK_MAX_DELAY_MS = 10_000;

export const MOCK_BEHAVIOURS = [
  "echo", "static", "messages", "pass", "fail", "score", "reflect", "error", "delay",
] as const;

/** What a mock invocation sees: its parameters, the inputs, what the application produced (evaluator role). */
export interface MockCall {
  parameters: Record<string, unknown>;
  inputs: Record<string, unknown>;
  outputs?: unknown;
  maxDelayMs?: number;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A failure the mock was asked for (`error`): the reference's status 500 with its own type. */
export const mockError = (message: string) => new WorkflowError(500, ERROR_TYPES.mockError, message);

function number(kwargs: Record<string, unknown>, name: string, fallback: number): number {
  const value = kwargs[name] ?? fallback;
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isFinite(n)) {
    throw invalidParameters(`parameters.kwargs.${name} must be a number`);
  }
  return n;
}

/** Runs the behaviour `parameters.key` names; a missing or unknown key or bad kwargs is a 400. */
export async function runMock(call: MockCall): Promise<unknown> {
  const { parameters } = call;
  if (!("key" in parameters) || parameters.key === null) throw invalidParameters("The mock needs parameters.key");
  const key = String(parameters.key);
  if (!(MOCK_BEHAVIOURS as readonly string[]).includes(key)) {
    throw invalidParameters(`Unknown mock behaviour '${key}': expected one of ${MOCK_BEHAVIOURS.join(", ")}`);
  }
  const kwargs = parameters.kwargs ?? {};
  if (!isObject(kwargs)) throw invalidParameters("parameters.kwargs must be an object");
  if (key === "delay") return delay(call, kwargs);
  return behave(key, call, kwargs);
}

function behave(key: string, call: MockCall, kwargs: Record<string, unknown>): unknown {
  switch (key) {
    case "echo":
      return call.inputs ?? {};
    case "static":
      return kwargs.output ?? {};
    case "messages":
      return { messages: [{ role: "assistant", content: String(kwargs.text ?? "mock reply") }] };
    case "fail":
      return { score: 0, success: false };
    case "score": {
      const score = number(kwargs, "score", 0);
      return { score, success: score >= number(kwargs, "threshold", 0.5) };
    }
    case "reflect": {
      // 1 only for a real application output: a sibling evaluator's {score, success} leaking in scores 0.
      const o = call.outputs;
      const real = isObject(o) && Object.keys(o).length > 0 && !("score" in o) && !("success" in o);
      return { score: real ? 1 : 0, success: real };
    }
    case "error":
      throw mockError(String(kwargs.message ?? "mock_v0 error behavior"));
    default: // "pass", and what `delay` falls back to
      return { score: 1, success: true };
  }
}

async function delay(call: MockCall, kwargs: Record<string, unknown>): Promise<unknown> {
  const seconds = number(kwargs, "seconds", 0.1);
  const cap = call.maxDelayMs ?? MOCK_MAX_DELAY_MS;
  if (seconds < 0) throw invalidParameters("parameters.kwargs.seconds must not be negative");
  if (seconds * 1000 > cap) {
    throw invalidParameters(
      `parameters.kwargs.seconds is ${seconds}: the mock waits at most ${cap / 1000} s (TESSERA_MOCK_MAX_DELAY_MS)`,
    );
  }
  await new Promise<void>((resolve) => setTimeout(resolve, seconds * 1000));
  const then = String(kwargs.then ?? "pass");
  // `then` names a non-delay behaviour; anything else passes, as in the reference.
  const next = then !== "delay" && (MOCK_BEHAVIOURS as readonly string[]).includes(then) ? then : "pass";
  return behave(next, call, kwargs);
}
