import { JsonEditor, parseJson } from "../components/json-editor.tsx";
import { ROLES } from "../prompt.ts";

/** One property of a template's `schemas.parameters`, as far as the form reads it. */
interface Property {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  items?: { "x-ag-type"?: string };
  "x-ag-type"?: string;
}

/** The parameters as the form holds them: JSON-valued fields keep their text until they parse. */
export type ParameterDraft = Record<string, unknown>;

const isMessages = (p: Property) => p.type === "array" && p.items?.["x-ag-type"] === "message";
const isColumn = (name: string, p: Property) => name.endsWith("_key") && /column/i.test(`${p.title} ${p.description}`);
const titleOf = (name: string, p: Property) => p.title ?? name.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
const jsonText = (value: unknown) => (value === undefined ? "" : JSON.stringify(value, null, 2));

/** The form's fields for a parameters schema, starting from `initial`: JSON-valued fields are held as text. */
export function draftOfParameters(schema: unknown, initial: Record<string, unknown>): ParameterDraft {
  const properties = propertiesOf(schema);
  const draft: ParameterDraft = { ...initial };
  for (const [name, p] of Object.entries(properties)) {
    if (!isMessages(p) && (p.type === "object" || p.type === "array" || p.type === undefined)) {
      draft[name] = jsonText(initial[name]);
    }
  }
  return draft;
}

/** The parameters a draft describes, or the problems found by field name. */
export function parametersOfDraft(
  schema: unknown, draft: ParameterDraft,
): { parameters?: Record<string, unknown>; errors: Record<string, string> } {
  const properties = propertiesOf(schema);
  const errors: Record<string, string> = {};
  const parameters: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(draft)) {
    const p = properties[name];
    if (p && !isMessages(p) && (p.type === "object" || p.type === "array" || p.type === undefined)) {
      const text = String(value ?? "").trim();
      if (text === "") continue;
      const parsed = parseJson(text);
      if (parsed.error) errors[name] = parsed.error;
      else parameters[name] = parsed.value;
    } else if (value !== undefined && value !== "") parameters[name] = value;
  }
  return Object.keys(errors).length ? { errors } : { parameters, errors };
}

function propertiesOf(schema: unknown): Record<string, Property> {
  const properties = (schema as { properties?: unknown } | null)?.properties;
  return properties && typeof properties === "object" ? (properties as Record<string, Property>) : {};
}

/**
 * A field per property of a template's parameters schema: text, number, a switch, a choice, chat messages,
 * JSON for the rest. A property naming a testcase column is a choice among `columns` when any are known.
 */
export function ParameterFields(props: {
  schema: unknown;
  draft: ParameterDraft;
  onChange: (draft: ParameterDraft) => void;
  errors: Record<string, string>;
  columns: string[];
}) {
  const { draft, errors } = props;
  const set = (name: string, value: unknown) => props.onChange({ ...draft, [name]: value });
  const entries = Object.entries(propertiesOf(props.schema));
  if (entries.length === 0) return <p class="muted">This template takes no settings.</p>;
  return (
    <>
      {entries.map(([name, p]) => {
        const id = `param-${name}`;
        const title = titleOf(name, p);
        const error = errors[name];
        const hint = p.description && <p class="muted field-hint">{p.description}</p>;
        const value = draft[name];
        if (isMessages(p)) {
          return <MessagesField id={id} title={title} value={Array.isArray(value) ? value : []}
            onChange={(v) => set(name, v)} error={error} />;
        }
        if (p.type === "object" || p.type === "array" || p.type === undefined) {
          return (
            <div>
              <JsonEditor id={id} label={title} rows={6} value={String(value ?? "")} error={error}
                onInput={(text) => set(name, text)} />
              {hint}
            </div>
          );
        }
        if (p.type === "boolean") {
          return (
            <div class="field">
              <label class="checkbox"><input id={id} type="checkbox" checked={value === true}
                onChange={(e) => set(name, e.currentTarget.checked)} /> {title}</label>
              {hint}
            </div>
          );
        }
        const choices = p.enum?.map(String) ?? (isColumn(name, p) && props.columns.length ? props.columns : null);
        return (
          <div class={`field${error ? " field-invalid" : ""}`}>
            <label for={id}>{title}</label>
            {choices ? (
              <select id={id} value={String(value ?? "")} onChange={(e) => set(name, e.currentTarget.value)}>
                {[...new Set([...(value === undefined || value === "" ? [""] : [String(value)]), ...choices])]
                  .map((c) => <option value={c}>{c}</option>)}
              </select>
            ) : p.type === "number" || p.type === "integer" ? (
              <input id={id} type="number" step={p.type === "integer" ? "1" : "any"} min={p.minimum} max={p.maximum}
                value={value === undefined ? "" : String(value)}
                onInput={(e) => set(name, e.currentTarget.value === "" ? undefined : Number(e.currentTarget.value))} />
            ) : p["x-ag-type"] === "code" || /code|script/i.test(name) ? (
              <textarea id={id} class="code-input" rows={10} spellcheck={false} value={String(value ?? "")}
                onInput={(e) => set(name, e.currentTarget.value)} />
            ) : (
              <input id={id} value={String(value ?? "")} onInput={(e) => set(name, e.currentTarget.value)} />
            )}
            {hint}
            {error && <p class="field-error">{error}</p>}
          </div>
        );
      })}
    </>
  );
}

type Message = { role: string; content: string };

/** Chat messages (a judge's prompt): a role and a text each; added and removed. */
function MessagesField(props: {
  id: string; title: string; value: Message[]; onChange: (v: Message[]) => void; error?: string;
}) {
  const { value } = props;
  const change = (i: number, patch: Partial<Message>) =>
    props.onChange(value.map((m, j) => (j === i ? { ...m, ...patch } : m)));
  return (
    <fieldset class="edit-messages">
      <legend>{props.title}</legend>
      {value.map((m, i) => (
        <div class="edit-message" key={i}>
          <div class="edit-message-head">
            <label class="visually-hidden" for={`${props.id}-${i}-role`}>Role of message {i + 1}</label>
            <select id={`${props.id}-${i}-role`} value={m.role}
              onChange={(e) => change(i, { role: e.currentTarget.value })}>
              {[...new Set([...ROLES, m.role])].map((r) => <option value={r}>{r}</option>)}
            </select>
            <button type="button" class="button-small"
              onClick={() => props.onChange(value.filter((_, j) => j !== i))}>Remove</button>
          </div>
          <label class="visually-hidden" for={`${props.id}-${i}`}>Message {i + 1} ({m.role})</label>
          <textarea id={`${props.id}-${i}`} rows={Math.min(12, Math.max(3, String(m.content).split("\n").length + 1))}
            value={typeof m.content === "string" ? m.content : JSON.stringify(m.content)}
            onInput={(e) => change(i, { content: e.currentTarget.value })} />
        </div>
      ))}
      {props.error && <p class="field-error">{props.error}</p>}
      <button type="button"
        onClick={() => props.onChange([...value, { role: "user", content: "" }])}>Add message</button>
    </fieldset>
  );
}
