import type {
  LanguageModelV3FilePart, LanguageModelV3Prompt, LanguageModelV3TextPart, LanguageModelV3ToolCallPart,
} from "@ai-sdk/provider";
import type { WorkflowError } from "./errors.ts";

/** Chat messages in the OpenAI shape, as prompts and `inputs.messages` carry them. */
export const ROLES = ["developer", "system", "user", "assistant", "tool", "function"] as const;
export type Role = (typeof ROLES)[number];

export interface ContentPart {
  type: string;
  text?: string;
  image_url?: { url: string; detail?: string };
  file?: { file_data?: string; filename?: string; file_id?: string };
  [key: string]: unknown;
}

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: Role;
  content: string | ContentPart[] | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Checks the shape of a message list; `where` names it in the error (e.g. `inputs.messages`). */
export function parseMessages(value: unknown, where: string, fail: (message: string) => WorkflowError): ChatMessage[] {
  if (!Array.isArray(value)) throw fail(`${where} must be a list of messages`);
  return value.map((raw, i) => {
    const at = `${where}[${i}]`;
    if (!isObject(raw)) throw fail(`${at} must be an object`);
    if (!(ROLES as readonly unknown[]).includes(raw.role)) throw fail(`${at}.role must be one of ${ROLES.join(", ")}`);
    const content = raw.content ?? null;
    if (content !== null && typeof content !== "string" && !Array.isArray(content)) throw fail(`${at}.content must be a string or a list of parts`);
    if (Array.isArray(content)) {
      content.forEach((part, j) => {
        if (!isObject(part) || typeof part.type !== "string") throw fail(`${at}.content[${j}] must be an object with a type`);
        if (part.type === "text" && typeof part.text !== "string") throw fail(`${at}.content[${j}].text must be a string`);
      });
    }
    if (raw.tool_calls !== undefined && raw.tool_calls !== null) {
      if (!Array.isArray(raw.tool_calls) || !raw.tool_calls.every((c) => isObject(c) && typeof c.id === "string" && isObject(c.function) && typeof c.function.name === "string")) {
        throw fail(`${at}.tool_calls must be a list of {id, type: "function", function: {name, arguments}}`);
      }
    }
    const message: ChatMessage = { role: raw.role as Role, content: content as ChatMessage["content"] };
    if (typeof raw.name === "string") message.name = raw.name;
    if (Array.isArray(raw.tool_calls)) message.tool_calls = raw.tool_calls as ToolCall[];
    if (typeof raw.tool_call_id === "string") message.tool_call_id = raw.tool_call_id;
    return message;
  });
}

function textOf(content: ChatMessage["content"]): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content.filter((p) => p.type === "text").map((p) => p.text ?? "").join("\n");
}

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text || "{}");
  } catch {
    return text;
  }
}

/** `data:<media type>[;base64],<data>` as the provider interface takes it: base64 data and its media type. */
function dataUrl(url: string): { data: string; mediaType: string } | null {
  const match = /^data:([^;,]+)((?:;[^;,]+)*),(.*)$/s.exec(url);
  if (!match) return null;
  const base64 = match[2]!.split(";").includes("base64");
  const data = base64 ? match[3]! : Buffer.from(decodeURIComponent(match[3]!)).toString("base64");
  return { mediaType: match[1]!, data };
}

type Fail = (message: string) => WorkflowError;

function userPart(part: ContentPart, fail: Fail): LanguageModelV3TextPart | LanguageModelV3FilePart {
  if (part.type === "text") return { type: "text", text: part.text ?? "" };
  if (part.type === "image_url" && typeof part.image_url?.url === "string") {
    const url = part.image_url.url;
    if (/^https?:\/\//i.test(url)) return { type: "file", mediaType: "image/*", data: new URL(url) };
    const inline = dataUrl(url);
    if (!inline) throw fail("image_url.url must be an http(s) URL or a data: URL");
    return { type: "file", ...inline };
  }
  if (part.type === "file" && typeof part.file?.file_data === "string") {
    const inline = dataUrl(part.file.file_data);
    if (!inline) throw fail("file.file_data must be a data: URL");
    return { type: "file", ...inline, filename: part.file.filename };
  }
  throw fail(`Unsupported message part type '${part.type}'`);
}

/**
 * OpenAI-shaped messages as the AI SDK's provider interface takes them (what its `generateText` would hand
 * the provider): empty text parts dropped, consecutive tool results in one message, and a tool result named
 * after its tool from the earlier call.
 */
export function toProviderPrompt(messages: ChatMessage[], fail: Fail): LanguageModelV3Prompt {
  const toolNames = new Map<string, string>();
  const prompt: LanguageModelV3Prompt = [];
  for (const message of messages) {
    switch (message.role) {
      case "system":
      case "developer":
        prompt.push({ role: "system", content: textOf(message.content) });
        break;
      case "user":
        prompt.push({
          role: "user",
          content: Array.isArray(message.content)
            ? message.content.map((p) => userPart(p, fail)).filter((p) => p.type !== "text" || p.text !== "")
            : [{ type: "text", text: message.content ?? "" }],
        });
        break;
      case "assistant": {
        const content: (LanguageModelV3TextPart | LanguageModelV3ToolCallPart)[] = [];
        const text = textOf(message.content);
        if (text) content.push({ type: "text", text });
        for (const call of message.tool_calls ?? []) {
          toolNames.set(call.id, call.function.name);
          content.push({ type: "tool-call", toolCallId: call.id, toolName: call.function.name, input: parseArguments(call.function.arguments) });
        }
        prompt.push({ role: "assistant", content });
        break;
      }
      case "tool":
      case "function": {
        const toolCallId = message.tool_call_id ?? message.name ?? "";
        const toolName = toolNames.get(toolCallId) ?? message.name ?? "tool";
        const output = { type: "text" as const, value: textOf(message.content) };
        const result = { type: "tool-result" as const, toolCallId, toolName, output };
        const last = prompt.at(-1);
        if (last?.role === "tool") last.content.push(result);
        else prompt.push({ role: "tool", content: [result] });
        break;
      }
    }
  }
  return prompt;
}
