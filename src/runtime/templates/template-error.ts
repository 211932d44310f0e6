/** A template that cannot be rendered: either its syntax is wrong, or it names variables the inputs lack. */
export class TemplateError extends Error {
  /** The placeholders that could not be resolved; empty when the template itself is malformed. */
  readonly missing: string[];

  constructor(message: string, missing: string[] = []) {
    super(message);
    this.name = "TemplateError";
    this.missing = missing;
  }
}

export function missingVariables(names: string[]): TemplateError {
  const unique = [...new Set(names)];
  return new TemplateError(`Missing template variable${unique.length > 1 ? "s" : ""}: ${unique.join(", ")}`, unique);
}
