/** Parses JSON text: the value, or the parser's complaint. */
export function parseJson(text: string): { value?: unknown; error?: string } {
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return { error: `Not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/**
 * A JSON text area: says at once when the text does not parse, pretty-prints on demand ("Format"), and
 * shows an error from elsewhere (the server's) under it.
 */
export function JsonEditor(props: { id: string; label: string; value: string; onInput: (text: string) => void; error?: string | null; rows?: number }) {
  const parsed = parseJson(props.value);
  const error = parsed.error ?? props.error ?? null;
  const format = () => {
    if (parsed.error === undefined) props.onInput(JSON.stringify(parsed.value, null, 2));
  };
  return (
    <div class={`field${error ? " field-invalid" : ""}`}>
      <div class="field-head">
        <label for={props.id}>{props.label}</label>
        <button type="button" class="button-small" onClick={format} disabled={parsed.error !== undefined}>Format</button>
      </div>
      <textarea id={props.id} class="code-input" rows={props.rows ?? 16} spellcheck={false} value={props.value}
        aria-invalid={error ? "true" : undefined} aria-describedby={error ? `${props.id}-error` : undefined}
        onInput={(e) => props.onInput((e.target as HTMLTextAreaElement).value)} />
      {error && <p class="field-error" id={`${props.id}-error`}>{error}</p>}
    </div>
  );
}
