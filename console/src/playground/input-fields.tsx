/** The inputs of a run: one field per input the configurations take, JSON for the ones that are not text. */
export interface Input {
  name: string;
  type: string;
}

const article = (type: string) => (type === "array" ? "an array" : `a${/^[aeiou]/.test(type) ? "n" : ""} ${type}`);

/** The request's inputs from the fields' text, or the fields whose JSON does not parse. */
export function parseInputs(
  inputs: Input[], values: Record<string, string>,
): { body?: Record<string, unknown>; errors: Record<string, string> } {
  const body: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const input of inputs) {
    const text = values[input.name] ?? "";
    if (input.type === "string") body[input.name] = text;
    else if (text.trim() !== "") {
      try {
        body[input.name] = JSON.parse(text);
      } catch {
        errors[input.name] = `Not valid JSON (this input is ${article(input.type)})`;
      }
    }
  }
  return Object.keys(errors).length ? { errors } : { body, errors };
}

export function InputFields(props: {
  inputs: Input[]; values: Record<string, string>; errors: Record<string, string>;
  onChange: (values: Record<string, string>) => void;
}) {
  const { inputs, values, errors } = props;
  if (inputs.length === 0) return <p class="muted">This configuration names no inputs.</p>;
  return (
    <div class="pg-input-fields">
      {inputs.map((input) => {
        const id = `pg-input-${input.name}`;
        const error = errors[input.name];
        return (
          <div class={`field${error ? " field-invalid" : ""}`}>
            <label for={id}>
              {input.name}{input.type !== "string" && <span class="muted"> ({input.type}, JSON)</span>}
            </label>
            <textarea id={id} rows={input.type === "string" ? 2 : 4} value={values[input.name] ?? ""}
              class={input.type === "string" ? undefined : "code-input"} aria-invalid={error ? "true" : undefined}
              aria-describedby={error ? `${id}-error` : undefined}
              onInput={(e) => props.onChange({ ...values, [input.name]: (e.target as HTMLTextAreaElement).value })} />
            {error && <p class="field-error" id={`${id}-error`}>{error}</p>}
          </div>
        );
      })}
    </div>
  );
}
