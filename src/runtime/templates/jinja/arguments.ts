/** Call arguments as Python binds them: by position or by keyword, with a default. */
export class Arguments {
  readonly positional: unknown[];
  readonly keywords: Map<string, unknown>;

  constructor(positional: unknown[] = [], keywords = new Map<string, unknown>()) {
    this.positional = positional;
    this.keywords = keywords;
  }

  get(index: number, name: string, fallback?: unknown): unknown {
    if (this.keywords.has(name)) return this.keywords.get(name);
    return index < this.positional.length ? this.positional[index] : fallback;
  }

  /** Positional arguments from `index` on (for `select('divisibleby', 3)` and friends). */
  rest(index: number): unknown[] {
    return this.positional.slice(index);
  }
}
