import { type WorkflowUri, formatUri, parseUri } from "../workflows/uri.ts";
import { runCode } from "./code/code.ts";
import { DEFAULT_SANDBOX_LIMITS } from "./code/sandbox.ts";
import { invalidInputs, invalidParameters, toWorkflowError, type WorkflowError } from "./errors.ts";
import { isEvaluatorKey, runEvaluator } from "./evaluators/registry.ts";
import { callHook, HOOK_MAX_RESPONSE_BYTES, HOOK_TIMEOUT_MS } from "./hook.ts";
import { runMock } from "./mock/mock.ts";
import { headerProblem } from "./net/header-text.ts";
import { toProviderPrompt } from "./messages.ts";
import { renderPrompt, type PromptMode } from "./prompt.ts";
import type { InvokeRequest } from "./invoke-request.ts";
import { complete, completeStream, type LlmCall, type LlmResult, PROVIDER_TIMEOUT_MS, type Usage } from "./providers/complete.ts";
import { languageModel, resolveModelTarget } from "./providers/resolve.ts";
import { type OpenSpan, type TraceRecord, Tracer } from "./trace.ts";


export interface WorkflowResult extends TraceRecord {
  outputs: unknown;
  usage?: Usage;
}

export type StreamEvent = { type: "delta"; text: string } | { type: "done"; result: WorkflowResult };

type HandlerKind = PromptMode | "hook" | "code" | "evaluator" | "mock";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function handlerFor(uri: WorkflowUri | null, raw: string): HandlerKind {
  if (uri?.provider === "svc" && uri.version === "v0") {
    if (uri.kind === "builtin" && (uri.key === "completion" || uri.key === "chat")) return uri.key;
    if (uri.kind === "builtin" && isEvaluatorKey(uri.key)) return "evaluator";
    if (uri.kind === "custom" && (uri.key === "hook" || uri.key === "code" || uri.key === "mock")) return uri.key;
  }
  throw invalidParameters(`No hosted handler for workflow URI '${raw}'`);
}

/** Runs one invocation to its end. Throws a WorkflowError whose `trace` holds the spans recorded. */
export async function invokeWorkflow(request: InvokeRequest): Promise<WorkflowResult> {
  const invocation = new Invocation(request);
  try {
    return invocation.finish(await invocation.run());
  } catch (error) {
    throw invocation.fail(error);
  }
}

/**
 * The same, as events: text deltas while a completion or chat model writes, then `done` with the
 * result. Hooks and code produce only `done`. Stopping early cancels the provider call.
 */
export async function* streamWorkflow(request: InvokeRequest): AsyncGenerator<StreamEvent> {
  const invocation = new Invocation(request);
  try {
    let outcome: Outcome | undefined;
    for await (const event of invocation.stream()) {
      if (event.type === "delta") yield event;
      else outcome = event.outcome;
    }
    yield { type: "done", result: invocation.finish(outcome!) };
  } catch (error) {
    throw invocation.fail(error);
  } finally {
    invocation.abandon();
  }
}

interface Outcome {
  outputs: unknown;
  usage?: Usage;
}

class Invocation {
  readonly request: InvokeRequest;
  readonly tracer: Tracer;
  readonly root: OpenSpan;
  /** The span of the model, hook or code the handler calls, under the root: the handler itself has no span. */
  callSpan: OpenSpan | null = null;

  constructor(request: InvokeRequest) {
    this.request = request;
    this.tracer = new Tracer(request.traceIds?.traceId);
    const uri = parseUri(request.uri);
    this.root = this.tracer.start(uri ? formatUri(uri) : request.uri, "workflow", null, request.traceIds?.spanId);
    this.root.set({ inputs: request.inputs ?? {}, parameters: request.parameters ?? {}, uri: request.uri });
  }

  get inputs(): Record<string, unknown> {
    const inputs = this.request.inputs ?? {};
    if (!isObject(inputs)) throw invalidInputs("inputs must be an object");
    return inputs;
  }

  get parameters(): Record<string, unknown> {
    const parameters = this.request.parameters ?? {};
    if (!isObject(parameters)) throw invalidParameters("parameters must be an object");
    return parameters;
  }

  kind(): HandlerKind {
    return handlerFor(parseUri(this.request.uri), this.request.uri);
  }

  async run(): Promise<Outcome> {
    const kind = this.kind();
    if (kind === "hook") return this.hook();
    if (kind === "code") return this.code();
    if (kind === "evaluator") return this.evaluator();
    if (kind === "mock") return { outputs: await this.mock() };
    const result = await complete(this.llmCall(kind));
    return this.llmDone(result);
  }

  async *stream(): AsyncGenerator<{ type: "delta"; text: string } | { type: "done"; outcome: Outcome }> {
    const kind = this.kind();
    if (kind === "hook" || kind === "code" || kind === "evaluator" || kind === "mock") {
      yield { type: "done", outcome: await this.run() };
      return;
    }
    for await (const event of completeStream(this.llmCall(kind))) {
      if (event.type === "delta") yield event;
      else yield { type: "done", outcome: this.llmDone(event.result) };
    }
  }

  llmCall(mode: PromptMode): LlmCall {
    const prompt = renderPrompt(this.parameters, this.inputs, mode, this.request.limits?.templates);
    const target = resolveModelTarget(prompt.llmConfig.model, this.request.secrets ?? [], this.request.env ?? process.env);
    const { model: _model, ...settings } = prompt.llmConfig;
    this.callSpan = this.tracer.start(`${target.provider}.chat`, "chat", this.root.span);
    this.callSpan.set({
      provider: target.provider, model: target.model, settings, prompt: prompt.messages,
      template_format: prompt.templateFormat,
    });
    return {
      target,
      model: languageModel(target, this.request.allowPrivateHooks === true),
      prompt: toProviderPrompt(prompt.messages, invalidInputs),
      config: prompt.llmConfig,
      mode,
      timeoutMs: this.request.timeouts?.providerMs ?? PROVIDER_TIMEOUT_MS,
    };
  }

  llmDone(result: LlmResult): Outcome {
    this.callSpan!.set({ outputs: result.outputs, usage: result.usage, finish_reason: result.finishReason });
    this.callSpan!.end();
    return { outputs: result.outputs, usage: result.usage };
  }

  async hook(): Promise<Outcome> {
    const { url, headers } = this.request;
    if (typeof url !== "string" || url.trim() === "") throw invalidParameters("A custom hook needs a url");
    if (headers !== undefined && headers !== null && !isObject(headers)) throw invalidParameters("Hook headers must be an object");
    const problem = headerProblem(headers ?? {});
    if (problem) throw invalidParameters(problem.detail);
    const stringHeaders = Object.fromEntries(Object.entries(headers ?? {}).filter((e): e is [string, string] => typeof e[1] === "string"));
    this.callSpan = this.tracer.start("hook.invoke", "hook", this.root.span);
    this.callSpan.set({ url: redactedUrl(url) });
    const { inputs, parameters } = this;
    const { outputs, trace, testcase } = this.request;
    const result = await callHook({
      url,
      headers: stringHeaders,
      body: { inputs, parameters, ...(outputs !== undefined && { outputs }), ...(trace !== undefined && { trace }), ...(testcase !== undefined && { testcase }) },
      allowPrivate: this.request.allowPrivateHooks === true,
      timeoutMs: this.request.timeouts?.hookMs ?? HOOK_TIMEOUT_MS,
      maxResponseBytes: this.request.limits?.hookResponseBytes ?? HOOK_MAX_RESPONSE_BYTES,
    });
    this.callSpan.set({ status: result.status, outputs: result.outputs });
    this.callSpan.end();
    return { outputs: result.outputs };
  }

  async code(): Promise<Outcome> {
    this.callSpan = this.tracer.start("code.run", "code", this.root.span);
    const result = await runCode({
      script: this.request.script,
      runtime: this.request.runtime,
      inputs: this.inputs,
      parameters: this.parameters,
      outputs: this.request.outputs,
      trace: this.request.trace,
      sandbox: this.request.sandbox,
      limits: {
        timeMs: this.request.timeouts?.codeMs ?? DEFAULT_SANDBOX_LIMITS.timeMs,
        memoryBytes: this.request.limits?.codeMemoryBytes ?? DEFAULT_SANDBOX_LIMITS.memoryBytes,
      },
    });
    this.callSpan.set({ entry: result.entry, outputs: result.outputs });
    this.callSpan.end();
    return { outputs: result.outputs };
  }

  mock(): Promise<unknown> {
    const { parameters, inputs } = this;
    return runMock({ parameters, inputs, outputs: this.request.outputs, maxDelayMs: this.request.limits?.mockDelayMs });
  }

  evaluator(): Promise<Outcome> {
    return runEvaluator(parseUri(this.request.uri)!.key, {
      parameters: this.parameters,
      inputs: this.inputs,
      request: this.request,
      openSpan: (name, type) => (this.callSpan = this.tracer.start(name, type, this.root.span)),
    });
  }

  finish(outcome: Outcome): WorkflowResult {
    this.root.set({ outputs: outcome.outputs, ...(outcome.usage && { usage: outcome.usage }) });
    this.root.end();
    return { outputs: outcome.outputs, ...(outcome.usage && { usage: outcome.usage }), ...this.tracer.record(this.root.span) };
  }

  fail(error: unknown): WorkflowError {
    const failure = toWorkflowError(error);
    for (const span of [this.callSpan, this.root]) span?.end(failure);
    failure.trace = this.tracer.record(this.root.span);
    return failure;
  }

  /** A stream dropped before its end: close what is still open. */
  abandon(): void {
    for (const span of [this.callSpan, this.root]) span?.end({ message: "cancelled" });
  }
}

/** Hook URLs may carry tokens in their query or credentials: traces keep only origin and path. */
function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return "(invalid url)";
  }
}
