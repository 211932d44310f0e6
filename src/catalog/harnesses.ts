import { deepFreeze, type CatalogHarness } from "./entry.ts";

/**
 * Harnesses: the ways a workflow is run, with what each can do. Templates of the same key run in
 * the harness of that key.
 */
export const HARNESSES: readonly CatalogHarness[] = deepFreeze([
  {
    key: "completion",
    name: "Completion",
    description: "Renders a prompt template with the inputs and makes one model call.",
    capabilities: { hosted: true, llm: true, messages: false, tools: true, structured_output: true, streaming: false, template_formats: ["curly", "fstring", "jinja2", "mustache"] },
  },
  {
    key: "chat",
    name: "Chat",
    description: "Renders a prompt template, appends the conversation from inputs.messages and makes one model call.",
    capabilities: { hosted: true, llm: true, messages: true, tools: true, structured_output: true, streaming: false, template_formats: ["curly", "fstring", "jinja2", "mustache"] },
  },
  {
    key: "hook",
    name: "Hook",
    description: "Forwards each invoke to a user's HTTPS service at data.url.",
    capabilities: { hosted: false, llm: false, messages: false, requires_url: true, headers: true, https_only: true, timeout_seconds: 30, max_response_bytes: 1048576 },
  },
  {
    key: "code",
    name: "Code",
    description: "Runs a user's script (data.script) in the hosted sandbox.",
    capabilities: { hosted: true, llm: false, messages: false, requires_script: true, runtimes: ["javascript"] },
  },
]);
