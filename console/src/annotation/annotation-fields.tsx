import type { OutputField } from "./queue-api.ts";

/** What the annotator typed, by field name: text for numbers, text and JSON; true/false/"" for booleans. */
export type Draft = Record<string, string>;

/** A draft from stored outputs (an earlier annotation), or empty. */
export function draftOf(fields: OutputField[], outputs: Record<string, unknown> | null | undefined): Draft {
  return Object.fromEntries(fields.map((f) => {
    const value = outputs?.[f.name];
    if (value === undefined || value === null) return [f.name, ""];
    if (f.type === "json" || (f.choices && typeof value !== "string")) return [f.name, JSON.stringify(value)];
    return [f.name, String(value)];
  }));
}

/** The outputs a draft stands for, or the first problem found (a required field empty, a number that is none). */
export function outputsOf(
  fields: OutputField[], draft: Draft,
): { outputs?: Record<string, unknown>; problem?: string } {
  const outputs: Record<string, unknown> = {};
  for (const f of fields) {
    const text = (draft[f.name] ?? "").trim();
    if (text === "") {
      if (f.required) return { problem: `${f.name} is required.` };
      continue;
    }
    if (f.choices) {
      const choice = f.choices.find((c) => (typeof c === "string" ? c : JSON.stringify(c)) === text);
      outputs[f.name] = choice ?? text;
    } else if (f.type === "boolean") {
      outputs[f.name] = text === "true";
    } else if (f.type === "number" || f.type === "integer") {
      const n = Number(text);
      if (!Number.isFinite(n)) return { problem: `${f.name} must be a number.` };
      if (f.type === "integer" && !Number.isInteger(n)) return { problem: `${f.name} must be a whole number.` };
      if (f.minimum !== undefined && n < f.minimum) return { problem: `${f.name} must be at least ${f.minimum}.` };
      if (f.maximum !== undefined && n > f.maximum) return { problem: `${f.name} must be at most ${f.maximum}.` };
      outputs[f.name] = n;
    } else if (f.type === "json") {
      try {
        outputs[f.name] = JSON.parse(text);
      } catch {
        return { problem: `${f.name} must be JSON.` };
      }
    } else {
      outputs[f.name] = draft[f.name];
    }
  }
  return { outputs };
}

/** One input per output field: a number box, yes/no, a list of categories, or free text. */
export function AnnotationFields(props: {
  stepKey: string; fields: OutputField[]; draft: Draft; onChange: (draft: Draft) => void;
}) {
  const set = (name: string, value: string) => props.onChange({ ...props.draft, [name]: value });
  return (
    <div class="an-fields">
      {props.fields.map((f) => {
        const id = `an-${props.stepKey}-${f.name}`;
        const value = props.draft[f.name] ?? "";
        const label = <label for={id}>{f.name}{f.required && <span class="muted"> (required)</span>}</label>;
        if (f.type === "boolean") {
          return (
            <fieldset class="an-field" key={f.name}>
              <legend>{f.name}{f.required && <span class="muted"> (required)</span>}</legend>
              {[["true", "Yes"], ["false", "No"]].map(([v, text]) => (
                <label key={v} class="an-choice">
                  <input type="radio" name={id} value={v} checked={value === v}
                    onChange={() => set(f.name, v)} /> {text}
                </label>
              ))}
              {f.description && <p class="muted field-hint">{f.description}</p>}
            </fieldset>
          );
        }
        return (
          <div class="an-field field" key={f.name}>
            {label}
            {f.choices ? (
              <select id={id} value={value} onChange={(e) => set(f.name, e.currentTarget.value)}>
                <option value="">—</option>
                {f.choices.map((c) => {
                  const text = typeof c === "string" ? c : JSON.stringify(c);
                  return <option key={text} value={text}>{text}</option>;
                })}
              </select>
            ) : f.type === "number" || f.type === "integer" ? (
              <input id={id} type="number" step={f.type === "integer" ? 1 : "any"} min={f.minimum} max={f.maximum}
                value={value}
                onInput={(e) => set(f.name, e.currentTarget.value)} />
            ) : (
              <textarea id={id} rows={f.type === "json" ? 4 : 3} value={value}
                onInput={(e) => set(f.name, e.currentTarget.value)} />
            )}
            {f.description && <p class="muted field-hint">{f.description}</p>}
          </div>
        );
      })}
    </div>
  );
}
