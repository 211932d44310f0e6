/*
 * GenAI semantic-convention messages (`{role, parts: [{type: "text" | "tool_call" | "tool_call_response" |
 * "thinking", …}]}`) in the chat shape the console and evaluators read (`{role, content, tool_calls?}`), as the
 * reference's Logfire adapter rewrites them: each tool result becomes a message of role `tool`, text parts are
 * joined. Messages already in the chat shape are kept.
 */

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The messages in the chat shape. */
export function chatMessages(messages: unknown[]): Json[] {
  const out: Json[] = [];
  for (const message of messages.filter(isObject)) {
    const role = message.role ?? "";
    if ("content" in message && !("parts" in message)) {
      out.push(message);
      continue;
    }
    const parts = Array.isArray(message.parts) ? message.parts.filter(isObject) : [];
    const of = (type: string) => parts.filter((part) => part.type === type);
    for (const result of of("tool_call_response")) {
      out.push({ role: "tool", content: result.result ?? "", tool_call_id: result.id ?? "", name: result.name ?? "" });
    }
    const texts = of("text");
    const calls = of("tool_call");
    const thinking = of("thinking");
    if (parts.length > 0 && texts.length + calls.length + thinking.length === 0) continue;
    const chat: Json = { role, content: texts.map((part) => part.content ?? "").join(" ") };
    if (calls.length > 0) {
      chat.tool_calls = calls.map((call) => ({
        id: call.id ?? "", type: "function", function: { name: call.name ?? "", arguments: call.arguments ?? {} },
      }));
    }
    if (thinking.length > 0) chat.thinking = thinking.map((part) => part.content ?? "").join(" ");
    if (message.finish_reason) chat.finish_reason = message.finish_reason;
    out.push(chat);
  }
  return out;
}
