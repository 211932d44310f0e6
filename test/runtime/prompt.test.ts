import { describe, expect, it } from "vitest";
import { WorkflowError } from "../../src/runtime/errors.ts";
import { renderPrompt } from "../../src/runtime/prompt.ts";

const prompt = (overrides: Record<string, unknown> = {}) => ({
  prompt: {
    messages: [
      { role: "system", content: "You answer questions about {{country}}." },
      { role: "user", content: "What is the capital of {{ country }}?" },
    ],
    template_format: "curly",
    llm_config: { model: "gpt-4o-mini", temperature: 0.2 },
    ...overrides,
  },
});

function failure(fn: () => unknown): WorkflowError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(WorkflowError);
    return error as WorkflowError;
  }
  throw new Error("expected a failure");
}

describe("renderPrompt", () => {
  it("renders every message with the inputs, flat and under `inputs`", () => {
    const rendered = renderPrompt(prompt({ messages: [{ role: "user", content: "{{country}} / {{inputs.country}}" }] }), { country: "France" }, "completion");
    expect(rendered.messages).toEqual([{ role: "user", content: "France / France" }]);
    expect(rendered.llmConfig).toMatchObject({ model: "gpt-4o-mini", temperature: 0.2 });
  });

  it("renders text parts and string values of the response format, and leaves other parts alone", () => {
    const rendered = renderPrompt(prompt({
      messages: [{ role: "user", content: [{ type: "text", text: "Describe {{thing}}" }, { type: "image_url", image_url: { url: "https://x/{{thing}}.png" } }] }],
      llm_config: {
        model: "gpt-4o",
        response_format: { type: "json_schema", json_schema: { name: "answer", schema: { type: "object", description: "About {{thing}}", properties: { a: { type: "string" } } } } },
      },
    }), { thing: "a cat" }, "completion");
    expect(rendered.messages[0].content).toEqual([
      { type: "text", text: "Describe a cat" },
      { type: "image_url", image_url: { url: "https://x/{{thing}}.png" } },
    ]);
    expect(rendered.llmConfig.response_format).toMatchObject({ type: "json_schema", json_schema: { name: "answer", schema: { description: "About a cat" } } });
  });

  it("reports every missing variable at once as a 400", () => {
    const error = failure(() => renderPrompt(prompt({
      messages: [{ role: "user", content: "{{a}} {{b}}" }],
      llm_config: { model: "gpt-4o", response_format: { type: "json_schema", json_schema: { name: "x", schema: { description: "{{c}}" } } } },
    }), { a: 1 }, "completion"));
    expect(error.statusCode).toBe(400);
    expect(error.type).toMatch(/invalid-inputs$/);
    expect(error.message).toBe("Missing template variables: b, c");
  });

  it("requires every input key", () => {
    const error = failure(() => renderPrompt(prompt({ input_keys: ["country", "language", "tone"] }), { country: "France" }, "completion"));
    expect(error.statusCode).toBe(400);
    expect(error.message).toBe("Missing required inputs: language, tone");
    expect(renderPrompt(prompt({ input_keys: ["country"] }), { country: "Peru" }, "completion").messages).toHaveLength(2);
  });

  it("appends the chat history unrendered and keeps `messages` out of the context", () => {
    const history = [
      { role: "user", content: "Hello {{country}}" },
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "lookup", arguments: "{}" } }] },
      { role: "tool", tool_call_id: "c1", content: "42" },
    ];
    const rendered = renderPrompt(prompt({ messages: [{ role: "system", content: "About {{country}}" }] }), { country: "Chile", messages: history }, "chat");
    expect(rendered.messages).toEqual([{ role: "system", content: "About Chile" }, ...history]);
    const leaked = failure(() => renderPrompt(prompt({ messages: [{ role: "system", content: "{{messages}}" }] }), { messages: [] }, "chat"));
    expect(leaked.message).toBe("Missing template variable: messages");
  });

  it("renders the other formats", () => {
    const messages = (content: string) => [{ role: "user", content }];
    expect(renderPrompt(prompt({ template_format: "fstring", messages: messages("{country}") }), { country: "Peru" }, "completion").messages[0].content).toBe("Peru");
    expect(renderPrompt(prompt({ template_format: "mustache", messages: messages("{{country}}{{missing}}") }), { country: "Peru" }, "completion").messages[0].content).toBe("Peru");
    expect(renderPrompt(prompt({ template_format: "jinja2", messages: messages("{{ country|upper }}") }), { country: "Peru" }, "completion").messages[0].content).toBe("PERU");
  });

  it("rejects malformed prompts and configurations", () => {
    expect(failure(() => renderPrompt({}, {}, "completion")).message).toMatch(/parameters.prompt is required/);
    expect(failure(() => renderPrompt(prompt({ template_format: "erb" }), {}, "completion")).message).toMatch(/template_format/);
    expect(failure(() => renderPrompt(prompt({ messages: [{ role: "wizard", content: "x" }] }), {}, "completion")).message).toMatch(/role must be one of/);
    expect(failure(() => renderPrompt(prompt({ llm_config: { model: "gpt-4o", temperature: 3 } }), { country: "x" }, "completion")).message).toMatch(/temperature/);
    expect(failure(() => renderPrompt(prompt({ template_format: "jinja2", messages: [{ role: "user", content: "{% if %}" }] }), {}, "completion")).type).toMatch(/invalid-parameters$/);
    expect(failure(() => renderPrompt(prompt(), { country: "x", messages: "hi" }, "chat")).message).toMatch(/inputs.messages must be a list/);
  });
});
