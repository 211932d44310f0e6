import { catalogFlags, deepFreeze, presetOf, type CatalogEntry, type CatalogTemplate } from "./entry.ts";
import { object, openObject } from "./json-schema.ts";
import { MOCK_ENTRY } from "./mock-template.ts";
import { DEFAULT_MODEL } from "./models.ts";
import { MESSAGE_SCHEMA, MESSAGES_SCHEMA } from "./types.ts";

/*
 * Application templates: the built-in prompt handlers (completion, chat) and the custom handlers
 * (hook: a user's HTTP service; code: a user's script run by the hosted runtime; mock: the deterministic test workflow).
 * URIs are spelled the reference's way (`agenta:`); `svc:` and short forms find the same template through lookup.ts.
 */

function promptParametersSchema(promptDefault: Record<string, unknown>) {
  return object(
    {
      prompt: {
        "x-ag-type-ref": "prompt-template",
        type: "object",
        description: "A template for generating prompts with formatting capabilities.",
        default: promptDefault,
      },
    },
    { additional: true },
  );
}

const completionPrompt = {
  messages: [
    { role: "system", content: "You are an expert in geography." },
    { role: "user", content: "What is the capital of {{country}}?" },
  ],
  template_format: "curly",
  llm_config: { model: DEFAULT_MODEL },
};

const completion: CatalogTemplate = {
  key: "completion",
  name: "Completion",
  description: "Single-turn prompt: renders the messages with the inputs and returns the model's answer.",
  categories: ["builtin", "prompt"],
  flags: catalogFlags({ is_application: true, is_recommended: true }),
  data: {
    uri: "agenta:builtin:completion:v0",
    schemas: {
      parameters: promptParametersSchema(completionPrompt),
      inputs: openObject({ description: "Template variables, e.g. {\"country\": \"France\"}." }),
      outputs: {
        type: ["string", "object", "array"],
        description: "The generated text, or the parsed JSON when the prompt asks for structured output.",
      },
    },
    parameters: { prompt: completionPrompt },
  },
};

const chatPrompt = {
  messages: [
    {
      role: "system",
      content: "You are a helpful customer service chatbot. Help the user with their query.\nUse this context if available:\n<context>{{context}}</context>",
    },
  ],
  template_format: "curly",
  llm_config: { model: DEFAULT_MODEL },
};

const chat: CatalogTemplate = {
  key: "chat",
  name: "Chat",
  description: "Multi-turn prompt: renders the prompt messages, appends the conversation and returns the assistant's message.",
  categories: ["builtin", "prompt"],
  flags: catalogFlags({ is_application: true, is_recommended: true }),
  data: {
    uri: "agenta:builtin:chat:v0",
    schemas: {
      parameters: promptParametersSchema(chatPrompt),
      inputs: object(
        { messages: { ...MESSAGES_SCHEMA, "x-ag-type-ref": "messages", description: "The conversation so far, appended after the prompt's messages." } },
        { additional: true },
      ),
      outputs: { ...MESSAGE_SCHEMA, "x-ag-type-ref": "message", description: "The assistant's reply." },
    },
    parameters: { prompt: chatPrompt },
  },
};

const hook: CatalogTemplate = {
  key: "hook",
  name: "Hook",
  description: "Your own HTTP service: each invoke is forwarded to `POST {url}/invoke` with the inputs and parameters.",
  categories: ["custom"],
  flags: catalogFlags({ is_application: true, is_evaluator: true }),
  data: {
    uri: "agenta:custom:hook:v0",
    schemas: {
      parameters: openObject({ description: "Free-form configuration passed to the service." }),
      inputs: openObject(),
      outputs: { description: "Whatever the service answers." },
    },
    parameters: {},
  },
};

const codeScript = `function run(inputs, parameters) {
  // Return any JSON value; it becomes the workflow's outputs.
  return { echo: inputs, parameters };
}
`;

const code: CatalogTemplate = {
  key: "code",
  name: "Code",
  description: "A JavaScript function run by the hosted sandbox with the inputs and parameters.",
  categories: ["custom"],
  flags: catalogFlags({ is_application: true, is_evaluator: true }),
  data: {
    uri: "agenta:custom:code:v0",
    runtime: "javascript",
    script: codeScript,
    schemas: {
      parameters: openObject({ description: "Free-form configuration passed to the script." }),
      inputs: openObject(),
      outputs: { description: "The script's return value." },
    },
    parameters: {},
  },
};

export const APPLICATION_ENTRIES: readonly CatalogEntry[] = deepFreeze([
  {
    template: completion,
    presets: [
      presetOf(completion, {
        key: "default",
        name: "Default",
        description: "The template's own prompt.",
        data: { parameters: { prompt: completionPrompt } },
      }),
      presetOf(completion, {
        key: "capital-city",
        name: "Capital city",
        description: "Answers with the capital's name only.",
        data: {
          parameters: {
            prompt: {
              messages: [
                { role: "system", content: "You answer with the name of the capital city only, without punctuation." },
                { role: "user", content: "{{country}}" },
              ],
              template_format: "curly",
              llm_config: { model: DEFAULT_MODEL, temperature: 0 },
            },
          },
        },
      }),
      presetOf(completion, {
        key: "summarize",
        name: "Summarize",
        description: "Summarizes a text in a few sentences.",
        data: {
          parameters: {
            prompt: {
              messages: [
                { role: "system", content: "You write short, faithful summaries." },
                { role: "user", content: "Summarize in at most {{sentences}} sentences:\n\n{{text}}" },
              ],
              template_format: "curly",
              llm_config: { model: DEFAULT_MODEL, temperature: 0.2 },
            },
          },
        },
      }),
    ],
  },
  {
    template: chat,
    presets: [
      presetOf(chat, {
        key: "default",
        name: "Default",
        description: "The template's own prompt.",
        data: { parameters: { prompt: chatPrompt } },
      }),
      presetOf(chat, {
        key: "assistant",
        name: "Assistant",
        description: "A general helpful assistant.",
        data: {
          parameters: {
            prompt: {
              messages: [{ role: "system", content: "You are a helpful assistant. Answer concisely." }],
              template_format: "curly",
              llm_config: { model: DEFAULT_MODEL },
            },
          },
        },
      }),
    ],
  },
  {
    template: hook,
    presets: [presetOf(hook, { key: "default", name: "Default", description: "No configuration.", data: { parameters: {} } })],
  },
  {
    template: code,
    presets: [
      presetOf(code, {
        key: "default",
        name: "Default",
        description: "The template's script.",
        data: { runtime: "javascript", script: codeScript, parameters: {} },
      }),
    ],
  },
  MOCK_ENTRY,
]);
