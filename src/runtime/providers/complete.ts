import { generateText, type LanguageModel, type ModelMessage, streamText } from "ai";
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
  model: LanguageModel;
  messages: ModelMessage[];
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
  input: unknown;
}

export async function complete(call: LlmCall): Promise<LlmResult> {
  const signal = AbortSignal.timeout(call.timeoutMs);
  try {
    const result = await generateText({
      model: call.model,
      messages: call.messages,
      allowSystemInMessages: true,
      abortSignal: signal,
      ...callOptions(call.config, call.target),
    });
    return {
      outputs: shapeOutput(call, result.text, result.toolCalls),
      usage: usageOf(result.usage),
      finishReason: result.finishReason,
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
    const stream = streamText({
      model: call.model,
      messages: call.messages,
      allowSystemInMessages: true,
      abortSignal: signal,
      onError: () => {},
      ...callOptions(call.config, call.target),
    });
    for await (const part of stream.fullStream) {
      if (part.type === "text-delta") {
        text += part.text;
        yield { type: "delta", text: part.text };
      } else if (part.type === "tool-call") toolCalls.push(part);
      else if (part.type === "finish") {
        usage = usageOf(part.totalUsage);
        finishReason = part.finishReason;
      } else if (part.type === "error") throw part.error;
      else if (part.type === "abort") throw signal.reason;
    }
  } catch (error) {
    throw fail(error);
  } finally {
    cancel.abort();
  }
  if (timeout.aborted) throw fail(timeout.reason);
  yield { type: "done", result: { outputs: shapeOutput(call, text, toolCalls), usage, finishReason } };
}

/**
 * Completion: the text, or the parsed JSON when a JSON response format was asked for, or the tool
 * calls when the model answered with those only. Chat: an assistant message in the OpenAI shape.
 */
function shapeOutput(call: LlmCall, text: string, sdkToolCalls: SdkToolCall[]): unknown {
  const toolCalls: ToolCall[] = sdkToolCalls.map((c) => ({
    id: c.toolCallId,
    type: "function",
    function: { name: c.toolName, arguments: typeof c.input === "string" ? c.input : JSON.stringify(c.input ?? {}) },
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

function usageOf(usage: { inputTokens?: number; outputTokens?: number; totalTokens?: number } | undefined): Usage | undefined {
  if (!usage || (usage.inputTokens === undefined && usage.outputTokens === undefined)) return undefined;
  const prompt = usage.inputTokens ?? 0;
  const completion = usage.outputTokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: usage.totalTokens ?? prompt + completion };
}
