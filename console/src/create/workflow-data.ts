/** A new workflow revision's data from a template and what the create form holds for it. */
import { parseJson } from "../components/json-editor.tsx";
import { promptOfDraft, type PromptDraft } from "../pages/prompt-form.tsx";
import { promptOf } from "../prompt.ts";
import type { Template } from "./catalog.ts";

/** What the form edits beyond the name: the prompt (completion, chat), a hook's URL, code's script, JSON parameters. */
export interface WorkflowForm {
  prompt: PromptDraft | null;
  url: string;
  script: string;
  /** Parameters as JSON text (templates without a prompt). */
  parameters: string;
}

/** Which fields a template asks for. */
export function templateShape(t: Template): "prompt" | "hook" | "code" | "parameters" {
  const data = t.data as Record<string, any>;
  if (promptOf(data)) return "prompt";
  if (String(data?.uri ?? "").includes(":custom:hook:")) return "hook";
  if (String(data?.uri ?? "").includes(":custom:code:")) return "code";
  return "parameters";
}

/** The data to commit, or the problems by field (`url`, `script`, `parameters`, or the prompt form's fields). */
export function workflowData(
  t: Template, form: WorkflowForm,
): { data?: Record<string, unknown>; errors: Record<string, string> } {
  const base = t.data as Record<string, any>;
  const shape = templateShape(t);
  const data: Record<string, unknown> = { uri: base.uri };
  if (shape === "prompt" && form.prompt) {
    const original = base.parameters.prompt;
    const { prompt, errors } = promptOfDraft(original, form.prompt);
    if (!prompt) return { errors };
    return { data: { ...data, parameters: { ...base.parameters, prompt } }, errors: {} };
  }
  const errors: Record<string, string> = {};
  const parsed = parseJson(form.parameters.trim() || "{}");
  if (parsed.error) errors.parameters = parsed.error;
  else if (!parsed.value || typeof parsed.value !== "object" || Array.isArray(parsed.value)) {
    errors.parameters = "A JSON object";
  }
  if (shape === "hook") {
    if (!/^https?:\/\/\S+$/.test(form.url.trim())) errors.url = "The address of your service, http:// or https://";
    data.url = form.url.trim();
  }
  if (shape === "code") {
    if (!form.script.trim()) errors.script = "The script defines run(inputs, parameters)";
    data.script = form.script;
    data.runtime = base.runtime ?? "javascript";
  }
  if (Object.keys(errors).length) return { errors };
  return { data: { ...data, parameters: parsed.value }, errors };
}
