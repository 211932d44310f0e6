import type { Template } from "./catalog.ts";

/** The catalog's templates as a list of choices (radio buttons with each one's description). */
export function TemplatePicker(props: {
  templates: Template[]; chosen: string | null; onChoose: (key: string) => void; label: string;
}) {
  return (
    <fieldset class="create-templates">
      <legend>{props.label}</legend>
      {props.templates.map((t) => (
        <label class={`create-template${props.chosen === t.key ? " create-template-chosen" : ""}`}>
          <input type="radio" name="template" value={t.key} checked={props.chosen === t.key}
            onChange={() => props.onChoose(t.key)} />
          <span>
            <strong>{t.name ?? t.key}</strong>
            {t.flags?.is_recommended && <span class="badge">recommended</span>}
            {t.description && <span class="muted create-template-text">{t.description}</span>}
          </span>
        </label>
      ))}
    </fieldset>
  );
}
