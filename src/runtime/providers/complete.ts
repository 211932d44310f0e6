import {
  APICallError, type LanguageModelV3, type LanguageModelV3Content, type LanguageModelV3Prompt,
  type LanguageModelV3Usage,
} from "@ai-sdk/provider";
import { upstreamFailed } from "../errors.ts";
import type { LlmConfig } from "../llm-config.ts";
import type { ToolCall } from "../messages.ts";
import type { PromptMode } from "../prompt.ts";
import { callOptions, isJsonFormat } from "./call-options.ts";
import { providerFailure } from "./failure.ts";
import type { ModelTarget } from "./resolve.ts";

/** How long one provider call may take before it is abandoned (504). */
export const PROVIDER_TIMEOUT_MS = 120_000;

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface LlmCall {
  target: ModelTarget;
  model: LanguageModelV3;
  prompt: LanguageModelV3Prompt;
  config: LlmConfig;
  mode: PromptMode;
  timeoutMs: number;
}

export interface LlmResult {
  outputs: unknown;
  usage?: Usage;
  finishReason?: string;
}

export type LlmStreamEvent = { type: "delta"; text: string } | { type: "done"; result: LlmResult };

interface SdkToolCall {
  toolCallId: string;
  toolName: string;
  input: string;
}

/*
 * Calls go to the AI SDK's provider models directly (`doGenerate`, `doStream`), as its `generateText` and
 * `streamText` do underneath: those also validate the prompt with zod, clone it and run a tool loop on every
 * call, about a third of a call's CPU against a fast provider, none of which a single call without tool
 * execution needs. The prompt is built once by `toProviderPrompt`.
 */

export async function complete(call: LlmCall): Promise<LlmResult> {
  const signal = AbortSignal.timeout(call.timeoutMs);
  try {
    const result = await withRetries(call, signal, () => call.model.doGenerate(options(call, signal)));
    const text = result.content.filter((c) => c.type === "text").map((c) => c.text).join("");
    return {
      outputs: shapeOutput(call, text, result.content.filter(isToolCall)),
      usage: usageOf(result.usage),
      finishReason: result.finishReason.unified,
    };
  } catch (error) {
    throw providerFailure(error, call.target.provider, signal.aborted ? call.timeoutMs : null);
  }
}

/** Text deltas as the provider sends them, then the same result `complete` would give. */
export async function* completeStream(call: LlmCall): AsyncGenerator<LlmStreamEvent> {
  const timeout = AbortSignal.timeout(call.timeoutMs);
  // Aborted when the consumer stops early, so the provider request does not run on unread.
  const cancel = new AbortController();
  const signal = AbortSignal.any([timeout, cancel.signal]);
  const fail = (error: unknown) => providerFailure(error, call.target.provider, timeout.aborted ? call.timeoutMs : null);
  let text = "";
  const toolCalls: SdkToolCall[] = [];
  let usage: Usage | undefined;
  let finishReason: string | undefined;
  try {
    const { stream } = await withRetries(call, signal, () => call.model.doStream(options(call, signal)));
    const reader = stream.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      const part = read.value;
      if (part.type === "text-delta") {
        if (part.delta === "") continue; // a provider's first chunk may carry the role alone
        text += part.delta;
        yield { type: "delta", text: part.delta };
      } else if (part.type === "tool-call") toolCalls.push(part);
      else if (part.type === "finish") {
        usage = usageOf(part.usage);
        finishReason = part.finishReason.unified;
      } else if (part.type === "error") throw part.error;
    }
    if (signal.aborted) throw signal.reason;
  } catch (error) {
    throw fail(error);
  } finally {
    cancel.abort();
  }
  yield { type: "done", result: { outputs: shapeOutput(call, text, toolCalls), usage, finishReason } };
}

const options = (call: LlmCall, signal: AbortSignal) => ({
  ...callOptions(call.config, call.target), prompt: call.prompt, abortSignal: signal,
});

type ToolCallContent = Extract<LanguageModelV3Content, { type: "tool-call" }>;
const isToolCall = (c: LanguageModelV3Content): c is ToolCallContent => c.type === "tool-call";

/** Backoff before retry n (from 0) of a call the provider may answer if asked again: 2 s, 4 s, 8 s… */
const RETRY_BASE_MS = 2000;

/**
 * The call, tried again up to `retry_config.max_retries` times (0 by default) when the provider's error says
 * trying again may help (429, 5xx, a reset connection), waiting as the provider asks or with backoff.
 */
async function withRetries<T>(call: LlmCall, signal: AbortSignal, attempt: () => PromiseLike<T>): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      const retryable = APICallError.isInstance(error) && error.isRetryable;
      if (!retryable || n >= (call.config.max_retries ?? 0) || signal.aborted) throw error;
      const waitMs = retryAfterMs(error as APICallError) ?? RETRY_BASE_MS * 2 ** n;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}

function retryAfterMs(error: APICallError): number | undefined {
  const seconds = Number(error.responseHeaders?.["retry-after"]);
  return Number.isFinite(seconds) && seconds >= 0 && seconds <= 60 ? seconds * 1000 : undefined;
}

/**
 * Completion: the text, or the parsed JSON when a JSON response format was asked for, or the tool
 * calls when the model answered with those only. Chat: an assistant message in the OpenAI shape.
 */
function shapeOutput(call: LlmCall, text: string, sdkToolCalls: SdkToolCall[]): unknown {
  const toolCalls: ToolCall[] = sdkToolCalls.map((c) => ({
    id: c.toolCallId,
    type: "function",
    function: { name: c.toolName, arguments: c.input.trim() === "" ? "{}" : c.input },
  }));
  if (call.mode === "chat") {
    return { role: "assistant", content: text === "" && toolCalls.length > 0 ? null : text, ...(toolCalls.length > 0 && { tool_calls: toolCalls }) };
  }
  if (text === "" && toolCalls.length > 0) return toolCalls;
  if (!isJsonFormat(call.config)) return text;
  try {
    return JSON.parse(text);
  } catch {
    throw upstreamFailed(`Provider '${call.target.provider}' returned text that is not valid JSON for the requested response format`);
  }
}

function usageOf(usage: LanguageModelV3Usage | undefined): Usage | undefined {
  const prompt = usage?.inputTokens.total;
  const completion = usage?.outputTokens.total;
  if (prompt === undefined && completion === undefined) return undefined;
  const [input, output] = [prompt ?? 0, completion ?? 0];
  return { prompt_tokens: input, completion_tokens: output, total_tokens: input + output };
}
