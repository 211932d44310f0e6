/**
 * The work and output one invocation's templates may spend. A single budget is shared by every
 * string rendered for one prompt (all messages and the response format), and renderers charge it as
 * they go, so a bomb is stopped before it builds anything large.
 */
export interface TemplateLimits {
  /** Largest rendered output, in UTF-8 bytes, summed over everything rendered with one budget. */
  maxBytes: number;
  /** Most evaluation steps: nodes, placeholders, section and loop iterations, items produced. */
  maxSteps: number;
}

/** 1 MiB of rendered text and a million steps: well past any real prompt, far below what hurts the server. */
export const DEFAULT_TEMPLATE_LIMITS: TemplateLimits = { maxBytes: 1024 * 1024, maxSteps: 1_000_000 };

/** Characters of intermediate data one step pays for (copying strings is work too). */
const CHARS_PER_STEP = 16;

/** The budget ran out: not a template mistake but a limit, named with the variable that sets it. */
export class TemplateLimitError extends Error {
  readonly variable: "TESSERA_TEMPLATE_MAX_BYTES" | "TESSERA_TEMPLATE_MAX_STEPS";

  constructor(variable: TemplateLimitError["variable"], message: string) {
    super(message);
    this.name = "TemplateLimitError";
    this.variable = variable;
  }
}

/** Counts steps and output bytes against TemplateLimits; throws TemplateLimitError when either is exceeded. */
export class RenderBudget {
  readonly limits: TemplateLimits;
  steps = 0;
  bytes = 0;

  constructor(limits: TemplateLimits = DEFAULT_TEMPLATE_LIMITS) {
    this.limits = limits;
  }

  /** Pays for `count` units of work. */
  step(count = 1): void {
    this.steps += count;
    if (this.steps > this.limits.maxSteps) {
      throw new TemplateLimitError("TESSERA_TEMPLATE_MAX_STEPS",
        `Template rendering exceeded TESSERA_TEMPLATE_MAX_STEPS (${this.limits.maxSteps} steps)`);
    }
  }

  /** Adds `text` to the rendered output: its bytes count toward the output cap. Returns it. */
  emit(text: string): string {
    // UTF-8 never takes fewer bytes than UTF-16 takes units: refuse what cannot fit without measuring it.
    if (text.length > this.limits.maxBytes - this.bytes) this.overflow();
    this.bytes += Buffer.byteLength(text);
    if (this.bytes > this.limits.maxBytes) this.overflow();
    this.step(1 + Math.floor(text.length / CHARS_PER_STEP));
    return text;
  }

  /**
   * Before building an intermediate string of `length` characters (a filter, an operator): no value
   * may exceed the output cap, and building it costs steps in proportion to its size.
   */
  reserveChars(length: number): void {
    this.checkChars(length);
    this.step(1 + Math.floor(Math.max(0, length) / CHARS_PER_STEP));
  }

  /** Refuses a value of `length` characters that could never fit the output cap, without charging steps. */
  checkChars(length: number): void {
    if (!Number.isFinite(length) || length > this.limits.maxBytes) this.overflow();
  }

  /** Reading (not building) `length` characters of data: paid in steps, with no size cap. */
  work(length: number): void {
    this.step(1 + Math.floor(Math.max(0, length) / CHARS_PER_STEP));
  }

  /** Before building a list of `count` items: each item is a step. */
  reserveItems(count: number): void {
    if (!Number.isFinite(count)) this.step(Infinity);
    this.step(1 + Math.max(0, Math.trunc(count)));
  }

  /**
   * A counter for serialising one value (JSON or Python repr): each call pays a step and adds
   * `chars`; past the output cap it throws, so a value is never serialised far beyond what could fit.
   */
  meter(): (chars: number) => void {
    let total = 0;
    return (chars) => {
      total += chars;
      if (total > this.limits.maxBytes) this.overflow();
      this.step();
    };
  }

  private overflow(): never {
    throw new TemplateLimitError("TESSERA_TEMPLATE_MAX_BYTES",
      `Template rendering exceeded TESSERA_TEMPLATE_MAX_BYTES (${this.limits.maxBytes} bytes of rendered text)`);
  }
}
