import http, { type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * A deterministic OpenAI-compatible provider on 127.0.0.1 for the runtime tests.
 * `POST /v1/chat/completions` echoes the last user message; with tools it calls the first (or the
 * chosen) tool with `{"query": <last user message>}`; with a JSON response format it answers JSON
 * (for json_schema, one value per schema property). Special models: `stub-401`, `stub-403`,
 * `stub-429`, `stub-500` answer those statuses, `stub-hang` never answers, `stub-not-json` answers
 * plain text whatever the format, `stub-slow` streams its first word then pauses for 10 s, `stub-huge` answers
 * (or streams) 40 MiB of text. `stub-reset-once`
 * and `stub-500-once` fail the first request for each user message (the connection closed without an
 * answer, or a 500) and answer the ones after it.
 * The key `sk-bad` is rejected with 401.
 */
export interface StubLlm {
  /** What to use as a provider base URL (`…/v1`). */
  baseUrl: string;
  requests: { headers: IncomingHttpHeaders; body: ChatRequest }[];
  /** Streams the stub saw the client abandon before their end. */
  abandonedStreams: number;
  close(): Promise<void>;
}

interface ChatRequest {
  model: string;
  messages: { role: string; content: string | { type: string; text?: string }[] | null }[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: { type: "function"; function: { name: string } }[];
  tool_choice?: string | { type: "function"; function: { name: string } };
  response_format?: { type: string; json_schema?: { schema?: { properties?: Record<string, { type?: string }> } } };
}

const FAILURES: Record<string, [number, string, string]> = {
  "stub-401": [401, "Incorrect API key provided", "invalid_api_key"],
  "stub-403": [403, "Project does not have access to this model", "model_not_found"],
  "stub-429": [429, "Rate limit reached for requests", "rate_limit_exceeded"],
  "stub-500": [500, "The server had an error while processing your request", "server_error"],
};

export async function startStubLlm(): Promise<StubLlm> {
  const requests: StubLlm["requests"] = [];
  const state = { abandonedStreams: 0 };
  const sockets = new Set<Socket>();
  const failedOnce = new Set<string>();
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") return json(res, 404, { error: { message: "not found" } });
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as ChatRequest;
    requests.push({ headers: req.headers, body });

    if (req.headers.authorization === "Bearer sk-bad") return json(res, 401, errorBody("Incorrect API key provided: sk-bad", "invalid_api_key"));
    const failure = FAILURES[body.model];
    if (failure) return json(res, failure[0], errorBody(failure[1], failure[2]));
    if (body.model === "stub-hang") return;
    if (body.model.endsWith("-once")) {
      const key = `${body.model}\n${textOf([...body.messages].reverse().find((m) => m.role === "user")?.content ?? "")}`;
      if (!failedOnce.has(key)) {
        failedOnce.add(key);
        if (body.model === "stub-reset-once") return void req.socket.destroy();
        return json(res, 500, errorBody("The server had an error while processing your request", "server_error"));
      }
    }

    const huge = body.model === "stub-huge";
    const answer = huge ? { content: "x".repeat(40 * 1024 * 1024), finishReason: "stop" } : answerFor(body);
    const usage = { prompt_tokens: body.messages.length * 10, completion_tokens: (answer.content ?? "").split(/\s+/).filter(Boolean).length + 1 };
    const fullUsage = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
    const base = { id: "chatcmpl-stub", created: 1_700_000_000, model: body.model };

    if (!body.stream) {
      return json(res, 200, {
        ...base,
        object: "chat.completion",
        choices: [{ index: 0, message: { role: "assistant", content: answer.content, ...(answer.toolCalls && { tool_calls: answer.toolCalls }) }, finish_reason: answer.finishReason }],
        usage: fullUsage,
      });
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    const chunk = (delta: unknown, finishReason: string | null = null) =>
      send({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finishReason }] });
    chunk({ role: "assistant", content: "" });
    const pieces = (answer.content ?? "").match(huge ? /.{1,65536}/gs : /\S+\s*|\s+/g) ?? [];
    if (body.model === "stub-slow") {
      chunk({ content: pieces.shift() ?? "" });
      res.on("close", () => {
        if (!res.writableFinished) state.abandonedStreams++;
      });
      await new Promise((resolve) => setTimeout(resolve, 10_000).unref());
      if (res.destroyed) return;
    }
    for (const piece of pieces) chunk({ content: piece });
    if (answer.toolCalls) chunk({ tool_calls: answer.toolCalls.map((call, index) => ({ index, ...call })) });
    chunk({}, answer.finishReason);
    if (body.stream_options?.include_usage) send({ ...base, object: "chat.completion.chunk", choices: [], usage: fullUsage });
    res.end("data: [DONE]\n\n");
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get abandonedStreams() {
      return state.abandonedStreams;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

interface StubToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

function answerFor(body: ChatRequest): { content: string | null; toolCalls?: StubToolCall[]; finishReason: string } {
  const last = body.messages.at(-1);
  const lastUser = [...body.messages].reverse().find((m) => m.role === "user");
  const userText = textOf(lastUser?.content ?? "");
  if (body.tools?.length && body.tool_choice !== "none" && last?.role === "user") {
    const name = typeof body.tool_choice === "object" ? body.tool_choice.function.name : body.tools[0].function.name;
    return {
      content: null,
      toolCalls: [{ id: "call_stub_1", type: "function", function: { name, arguments: JSON.stringify({ query: userText }) } }],
      finishReason: "tool_calls",
    };
  }
  if (last?.role === "tool") return { content: `Tool said: ${textOf(last.content)}`, finishReason: "stop" };
  if (body.model === "stub-not-json") return { content: "this is not json", finishReason: "stop" };
  if (body.response_format?.type === "json_object") return { content: JSON.stringify({ echo: userText }), finishReason: "stop" };
  if (body.response_format?.type === "json_schema") {
    const properties = body.response_format.json_schema?.schema?.properties ?? {};
    const sample = (type?: string) => (type === "number" || type === "integer" ? 42 : type === "boolean" ? true : type === "array" ? [] : type === "object" ? {} : userText);
    return { content: JSON.stringify(Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, sample(v.type)]))), finishReason: "stop" };
  }
  return { content: userText, finishReason: "stop" };
}

function textOf(content: ChatRequest["messages"][number]["content"]): string {
  if (typeof content === "string") return content;
  return (content ?? []).filter((p) => p.type === "text").map((p) => p.text ?? "").join("\n");
}

function errorBody(message: string, code: string) {
  return { error: { message, type: "invalid_request_error", param: null, code } };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
