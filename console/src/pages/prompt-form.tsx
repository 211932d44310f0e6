import { JsonEditor, parseJson } from "../components/json-editor.tsx";
import { RESPONSE_FORMATS, ROLES, templateVariables, TEMPLATE_FORMATS, type PromptMessage, type ResponseFormatType, type TemplateFormat } from "../prompt.ts";

/** What the prompt form edits; numbers stay text until committed so that a half-typed value is not lost. */
export interface PromptDraft {
  messages: PromptMessage[];
  templateFormat: TemplateFormat;
  model: string;
  temperature: string;
  maxTokens: string;
  responseFormat: ResponseFormatType;
  /** The JSON schema of a `json_schema` response format, as text. */
  jsonSchema: string;
}

const DEFAULT_SCHEMA = { name: "response", schema: { type: "object", properties: {} } };

export function draftOf(prompt: Record<string, any>): PromptDraft {
  const llm = prompt.llm_config && typeof prompt.llm_config === "object" ? prompt.llm_config : {};
  const format = llm.response_format?.type;
  const spec = llm.response_format?.json_schema ?? (format === "json_schema" ? { ...llm.response_format, type: undefined } : DEFAULT_SCHEMA);
  return {
    messages: prompt.messages.map((m: any) => ({ role: m.role, content: m.content ?? "" })),
    templateFormat: TEMPLATE_FORMATS.includes(prompt.template_format) ? prompt.template_format : "curly",
    model: typeof llm.model === "string" ? llm.model : "",
    temperature: llm.temperature === undefined || llm.temperature === null ? "" : String(llm.temperature),
    maxTokens: llm.max_tokens === undefined || llm.max_tokens === null ? "" : String(llm.max_tokens),
    responseFormat: RESPONSE_FORMATS.includes(format) ? format : "text",
    jsonSchema: JSON.stringify(spec, null, 2),
  };
}

/**
 * The prompt the draft describes, on top of `original` (fields the form does not show are kept), or the
 * problems found before sending, by field (the runtime's own limits: temperature 0–2, max tokens ≥ 1).
 */
export function promptOfDraft(original: Record<string, any>, draft: PromptDraft): { prompt?: Record<string, any>; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const llm: Record<string, any> = { ...(original.llm_config ?? {}) };
  if (!draft.model.trim()) errors.model = "A model is required";
  llm.model = draft.model.trim();
  const temperature = draft.temperature.trim() === "" ? undefined : Number(draft.temperature);
  if (temperature !== undefined && (Number.isNaN(temperature) || temperature < 0 || temperature > 2)) errors.temperature = "A number between 0 and 2";
  if (temperature === undefined) delete llm.temperature;
  else llm.temperature = temperature;
  const maxTokens = draft.maxTokens.trim() === "" ? undefined : Number(draft.maxTokens);
  if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || maxTokens < 1)) errors.max_tokens = "A whole number, 1 or more";
  if (maxTokens === undefined) delete llm.max_tokens;
  else llm.max_tokens = maxTokens;
  if (draft.responseFormat === "text") delete llm.response_format;
  else if (draft.responseFormat === "json_object") llm.response_format = { type: "json_object" };
  else {
    const parsed = parseJson(draft.jsonSchema);
    const spec = parsed.value as Record<string, any> | undefined;
    if (parsed.error) errors.response_format = parsed.error;
    else if (!spec || typeof spec !== "object" || typeof spec.schema !== "object" || spec.schema === null) {
      errors.response_format = "An object with a `schema` (a JSON Schema object) and a `name`";
    } else llm.response_format = { type: "json_schema", json_schema: spec };
  }
  draft.messages.forEach((m, i) => {
    if (!m.content.trim()) errors[`messages.${i}.content`] = "A message needs some text";
  });
  if (draft.messages.length === 0) errors.messages = "A prompt needs at least one message";
  if (Object.keys(errors).length) return { errors };
  return { prompt: { ...original, messages: draft.messages.map((m) => ({ role: m.role, content: m.content })), template_format: draft.templateFormat, llm_config: llm }, errors };
}

/** Which form field a refused commit's issue belongs to (its path after the commit's wrapper). */
export function promptFieldOf(path: (string | number)[]): string | null {
  const p = path.join(".");
  if (p === "message") return "message";
  const m = /^data\.parameters\.prompt\.(.+)$/.exec(p);
  if (!m) return null;
  const rest = m[1];
  if (/^messages\.\d+\.(content|role)/.test(rest)) return rest.split(".").slice(0, 3).join(".");
  if (rest.startsWith("messages")) return "messages";
  if (rest === "template_format") return "template_format";
  const llm = /^llm_config\.(model|temperature|max_tokens|response_format)/.exec(rest);
  return llm ? llm[1] : null;
}

function FieldError(props: { id: string; error?: string }) {
  return props.error ? <p class="field-error" id={`${props.id}-error`}>{props.error}</p> : null;
}

const described = (id: string, error?: string) => (error ? { "aria-invalid": "true" as const, "aria-describedby": `${id}-error` } : {});

/** The form of a completion or chat prompt: messages (with the variables each names), template format, model and settings. */
export function PromptForm(props: { draft: PromptDraft; onChange: (draft: PromptDraft) => void; errors: Record<string, string> }) {
  const { draft, errors } = props;
  const set = (changes: Partial<PromptDraft>) => props.onChange({ ...draft, ...changes });
  const setMessage = (i: number, changes: Partial<PromptMessage>) => set({ messages: draft.messages.map((m, j) => (j === i ? { ...m, ...changes } : m)) });
  const move = (i: number, by: number) => {
    const messages = [...draft.messages];
    [messages[i], messages[i + by]] = [messages[i + by], messages[i]];
    set({ messages });
  };
  return (
    <>
      <fieldset class="edit-messages">
        <legend>Messages</legend>
        {draft.messages.map((m, i) => {
          const id = `message-${i}`;
          const variables = templateVariables(m.content, draft.templateFormat);
          const error = errors[`messages.${i}.content`] ?? errors[`messages.${i}.role`];
          return (
            <div class={`edit-message${error ? " field-invalid" : ""}`} key={i}>
              <div class="edit-message-head">
                <label class="visually-hidden" for={`${id}-role`}>Role of message {i + 1}</label>
                <select id={`${id}-role`} value={m.role} onChange={(e) => setMessage(i, { role: (e.target as HTMLSelectElement).value })}>
                  {[...new Set([...ROLES, m.role])].map((r) => <option value={r}>{r}</option>)}
                </select>
                <span class="edit-message-tools">
                  <button type="button" class="button-small" onClick={() => move(i, -1)} disabled={i === 0} aria-label={`Move message ${i + 1} up`}>↑</button>
                  <button type="button" class="button-small" onClick={() => move(i, 1)} disabled={i === draft.messages.length - 1} aria-label={`Move message ${i + 1} down`}>↓</button>
                  <button type="button" class="button-small" onClick={() => set({ messages: draft.messages.filter((_, j) => j !== i) })} aria-label={`Remove message ${i + 1}`}>Remove</button>
                </span>
              </div>
              <label class="visually-hidden" for={id}>Message {i + 1} ({m.role})</label>
              <textarea id={id} rows={Math.min(12, Math.max(3, m.content.split("\n").length + 1))} value={m.content} {...described(id, error)}
                onInput={(e) => setMessage(i, { content: (e.target as HTMLTextAreaElement).value })} />
              <p class="edit-variables" aria-label={`Variables in message ${i + 1}`}>
                {variables.length === 0 ? <span class="muted">No variables</span> : variables.map((v) => <code class="variable">{`{{${v}}}`}</code>)}
              </p>
              <FieldError id={id} error={error} />
            </div>
          );
        })}
        {errors.messages && <p class="field-error">{errors.messages}</p>}
        <button type="button" onClick={() => set({ messages: [...draft.messages, { role: "user", content: "" }] })}>Add message</button>
      </fieldset>
      <fieldset class="edit-settings">
        <legend>Model and settings</legend>
        <div class="field">
          <label for="model">Model</label>
          <input id="model" value={draft.model} {...described("model", errors.model)} onInput={(e) => set({ model: (e.target as HTMLInputElement).value })} />
          <FieldError id="model" error={errors.model} />
        </div>
        <div class="field">
          <label for="temperature">Temperature</label>
          <input id="temperature" type="number" inputMode="decimal" step="0.1" min="0" max="2" value={draft.temperature} {...described("temperature", errors.temperature)}
            onInput={(e) => set({ temperature: (e.target as HTMLInputElement).value })} />
          <FieldError id="temperature" error={errors.temperature} />
        </div>
        <div class="field">
          <label for="max-tokens">Max tokens</label>
          <input id="max-tokens" type="number" inputMode="numeric" step="1" min="1" value={draft.maxTokens} {...described("max-tokens", errors.max_tokens)}
            onInput={(e) => set({ maxTokens: (e.target as HTMLInputElement).value })} />
          <FieldError id="max-tokens" error={errors.max_tokens} />
        </div>
        <div class="field">
          <label for="template-format">Template format</label>
          <select id="template-format" value={draft.templateFormat} {...described("template-format", errors.template_format)}
            onChange={(e) => set({ templateFormat: (e.target as HTMLSelectElement).value as TemplateFormat })}>
            {TEMPLATE_FORMATS.map((f) => <option value={f}>{f}</option>)}
          </select>
          <FieldError id="template-format" error={errors.template_format} />
        </div>
        <div class="field">
          <label for="response-format">Response format</label>
          <select id="response-format" value={draft.responseFormat} {...described("response-format", draft.responseFormat === "json_schema" ? undefined : errors.response_format)}
            onChange={(e) => set({ responseFormat: (e.target as HTMLSelectElement).value as ResponseFormatType })}>
            {RESPONSE_FORMATS.map((f) => <option value={f}>{f}</option>)}
          </select>
          {draft.responseFormat !== "json_schema" && <FieldError id="response-format" error={errors.response_format} />}
        </div>
      </fieldset>
      {draft.responseFormat === "json_schema" && (
        <JsonEditor id="json-schema" label="JSON schema of the answer" rows={8} value={draft.jsonSchema} error={errors.response_format}
          onInput={(text) => set({ jsonSchema: text })} />
      )}
    </>
  );
}
