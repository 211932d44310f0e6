import { invalidInputs, invalidParameters, templateLimit } from "./errors.ts";
import { type LlmConfig, parseLlmConfig } from "./llm-config.ts";
import { type ChatMessage, parseMessages } from "./messages.ts";
import { RenderBudget, TemplateLimitError, type TemplateLimits } from "./templates/render-budget.ts";
import { isTemplateFormat, renderTemplate, type TemplateFormat } from "./templates/render.ts";
import { TemplateError } from "./templates/template-error.ts";

export type PromptMode = "completion" | "chat";

export interface RenderedPrompt {
  messages: ChatMessage[];
  llmConfig: LlmConfig;
  templateFormat: TemplateFormat;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Turns `parameters.prompt` and the inputs into the messages to send: every message's text and the
 * response format are rendered with the inputs; in chat mode `inputs.messages` (the history) is
 * appended after them as it is. Every missing variable is reported at once. One budget of `limits`
 * covers all of it.
 */
export function renderPrompt(
  parameters: Record<string, unknown>, inputs: Record<string, unknown>, mode: PromptMode, limits?: TemplateLimits,
): RenderedPrompt {
  const prompt = parameters.prompt;
  if (!isObject(prompt)) throw invalidParameters("parameters.prompt is required and must be an object");
  const format = prompt.template_format ?? "curly";
  if (!isTemplateFormat(format)) throw invalidParameters("prompt.template_format must be one of curly, mustache, fstring, jinja2");
  const messages = parseMessages(prompt.messages, "parameters.prompt.messages", invalidParameters);
  if (!isObject(prompt.llm_config)) throw invalidParameters("parameters.prompt.llm_config is required and must be an object");

  checkInputKeys(prompt.input_keys, inputs);
  const history = mode === "chat" ? inputs.messages : undefined;
  const variables = mode === "chat" ? Object.fromEntries(Object.entries(inputs).filter(([key]) => key !== "messages")) : inputs;
  // A variable literally named `inputs` wins over the nested copy, as literal keys win in paths.
  const context = { inputs: variables, ...variables };

  const { render, renderAll, missing } = templateRenderer(format, context, limits);
  const rendered = renderAll(messages, "prompt.messages");
  const rawConfig = { ...prompt.llm_config };
  if (rawConfig.response_format !== undefined) rawConfig.response_format = renderStrings(rawConfig.response_format, (s) => render(s, "llm_config.response_format"));

  if (missing.length > 0) {
    const names = [...new Set(missing)];
    throw invalidInputs(`Missing template variable${names.length > 1 ? "s" : ""}: ${names.join(", ")}`);
  }

  const historyMessages = history !== undefined && history !== null ? parseMessages(history, "inputs.messages", invalidInputs) : [];
  return { messages: [...rendered, ...historyMessages], llmConfig: parseLlmConfig(rawConfig), templateFormat: format };
}

/**
 * Renders message texts (string contents and `text` parts) with one context, collecting every
 * missing variable instead of stopping at the first, so that one error can name them all. Everything
 * it renders shares one budget, so many small messages cannot add up past the limits.
 */
export function templateRenderer(format: TemplateFormat, context: Record<string, unknown>, limits?: TemplateLimits) {
  const missing: string[] = [];
  const budget = new RenderBudget(limits);
  const render = (template: string, where: string): string => {
    try {
      return renderTemplate(format, template, context as never, budget);
    } catch (error) {
      if (error instanceof TemplateLimitError) throw templateLimit(`${error.message} in ${where}`);
      if (!(error instanceof TemplateError)) throw error;
      if (error.missing.length === 0) throw invalidParameters(`Invalid ${format} template in ${where}: ${error.message}`);
      missing.push(...error.missing);
      return template;
    }
  };
  const renderAll = (messages: ChatMessage[], field: string) =>
    messages.map((message, i): ChatMessage => {
      const where = `${field}[${i}].content`;
      if (typeof message.content === "string") return { ...message, content: render(message.content, where) };
      if (Array.isArray(message.content)) {
        return { ...message, content: message.content.map((part, j) => (part.type === "text" ? { ...part, text: render(part.text ?? "", `${where}[${j}].text`) } : part)) };
      }
      return message;
    });
  return { render, renderAll, missing };
}

function checkInputKeys(inputKeys: unknown, inputs: Record<string, unknown>): void {
  if (inputKeys === undefined || inputKeys === null) return;
  if (!Array.isArray(inputKeys) || !inputKeys.every((k) => typeof k === "string")) throw invalidParameters("prompt.input_keys must be a list of strings");
  const absent = inputKeys.filter((key) => !Object.hasOwn(inputs, key));
  if (absent.length > 0) throw invalidInputs(`Missing required input${absent.length > 1 ? "s" : ""}: ${absent.join(", ")}`);
}

function renderStrings(value: unknown, render: (s: string) => string): unknown {
  if (typeof value === "string") return render(value);
  if (Array.isArray(value)) return value.map((v) => renderStrings(v, render));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderStrings(v, render)]));
  return value;
}
