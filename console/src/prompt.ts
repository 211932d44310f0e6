/**
 * A completion or chat prompt (`data.parameters.prompt`): its messages, template format and `llm_config`,
 * the template variables its messages name, and the inputs a revision takes.
 */
export interface PromptMessage {
  role: string;
  content: string;
}

export type TemplateFormat = "curly" | "mustache" | "fstring" | "jinja2";
export const TEMPLATE_FORMATS: TemplateFormat[] = ["curly", "mustache", "fstring", "jinja2"];
export const ROLES = ["system", "user", "assistant"];
export const RESPONSE_FORMATS = ["text", "json_object", "json_schema"] as const;
export type ResponseFormatType = (typeof RESPONSE_FORMATS)[number];

const isObject = (v: unknown): v is Record<string, any> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The prompt of revision data when it is one the form can edit: an object whose messages have text contents. */
export function promptOf(data: unknown): Record<string, any> | null {
  const prompt = isObject(data) && isObject(data.parameters) ? data.parameters.prompt : null;
  if (!isObject(prompt) || !Array.isArray(prompt.messages)) return null;
  const plain = prompt.messages.every((m: unknown) => isObject(m) && typeof m.role === "string" && (typeof m.content === "string" || m.content == null));
  return plain ? prompt : null;
}

/**
 * The variables a template names, in order of first use, without duplicates: `{{country}}` (curly, mustache,
 * jinja2; sections and comments left out), `{country}` (fstring). A dotted path counts by its first name.
 */
export function templateVariables(text: string, format: TemplateFormat = "curly"): string[] {
  const found: string[] = [];
  const add = (name: string) => {
    const first = name.trim().split(/[.[|\s(]/)[0];
    if (first && !found.includes(first)) found.push(first);
  };
  if (format === "fstring") {
    for (const m of text.matchAll(/(?<!\{)\{([A-Za-z_][\w.]*)(?:[!:][^{}]*)?\}(?!\})/g)) add(m[1]);
    return found;
  }
  for (const m of text.matchAll(/\{\{\{?\s*([^{}]+?)\s*\}?\}\}/g)) {
    let name = m[1];
    if (format === "mustache" || format === "curly") {
      if (/^[!/]/.test(name)) continue;
      name = name.replace(/^[#^&>]\s*/, "");
    }
    if (/^[$/]/.test(name)) continue; // JSONPath and JSON Pointer expressions name the whole inputs
    if (/^[A-Za-z_]/.test(name)) add(name);
  }
  return found;
}

/** Every variable the prompt's messages name. */
export function promptVariables(prompt: Record<string, any> | null): string[] {
  if (!prompt) return [];
  const format = TEMPLATE_FORMATS.includes(prompt.template_format) ? (prompt.template_format as TemplateFormat) : "curly";
  const names: string[] = [];
  for (const m of prompt.messages ?? []) {
    for (const name of templateVariables(typeof m?.content === "string" ? m.content : "", format)) if (!names.includes(name)) names.push(name);
  }
  return names;
}

/** The inputs a revision takes: the properties of `schemas.inputs`, then the prompt's variables; each with its JSON type. */
export function revisionInputs(data: unknown): { name: string; type: string }[] {
  const out: { name: string; type: string }[] = [];
  const properties = isObject(data) && isObject(data.schemas) && isObject(data.schemas.inputs) && isObject(data.schemas.inputs.properties)
    ? data.schemas.inputs.properties : {};
  for (const [name, schema] of Object.entries(properties)) out.push({ name, type: isObject(schema) && typeof schema.type === "string" ? schema.type : "string" });
  for (const name of promptVariables(promptOf(data))) if (!out.some((i) => i.name === name)) out.push({ name, type: "string" });
  return out;
}
