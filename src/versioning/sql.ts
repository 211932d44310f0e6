/** A WHERE clause built up condition by condition, with numbered parameters. */
export class Conditions {
  readonly params: unknown[];
  private readonly parts: string[] = [];

  constructor(params: unknown[] = []) {
    this.params = params;
  }

  /** Adds a parameter and returns its placeholder (`$n`). */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /** Adds `sql`, where each `?` stands for the next of `values`. */
  add(sql: string, ...values: unknown[]): this {
    let i = 0;
    this.parts.push(sql.replace(/\?/g, () => this.param(values[i++])));
    return this;
  }

  toString(): string {
    return this.parts.length ? this.parts.join(" AND ") : "TRUE";
  }
}
