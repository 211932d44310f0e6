import type { FastifyBaseLogger } from "fastify";

type Level = "fatal" | "error" | "warn" | "info" | "debug" | "trace";
type Parent = FastifyBaseLogger & { isLevelEnabled?(level: string): boolean };

/**
 * A request's logger that becomes a child of the server's logger (bound to the request id) only once
 * something is logged at an enabled level. At the usual levels most requests log nothing, and a
 * child per request was a measurable share of the cached retrieve path.
 */
class RequestLogger {
  readonly #parent: Parent;
  readonly #bindings: Record<string, unknown>;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: Parent, bindings: Record<string, unknown>) {
    this.#parent = parent;
    this.#bindings = bindings;
  }

  #real(): FastifyBaseLogger {
    return (this.#child ??= this.#parent.child(this.#bindings));
  }

  #log(level: Level, args: unknown[]) {
    if (this.#parent.isLevelEnabled!(level)) (this.#real()[level] as (...a: unknown[]) => void)(...args);
  }

  get level(): string {
    return this.#child?.level ?? this.#parent.level;
  }

  set level(level: string) {
    this.#real().level = level;
  }

  fatal(...args: unknown[]) { this.#log("fatal", args); }
  error(...args: unknown[]) { this.#log("error", args); }
  warn(...args: unknown[]) { this.#log("warn", args); }
  info(...args: unknown[]) { this.#log("info", args); }
  debug(...args: unknown[]) { this.#log("debug", args); }
  trace(...args: unknown[]) { this.#log("trace", args); }
  silent() {}

  child(bindings: Record<string, unknown>, options?: object): FastifyBaseLogger {
    return this.#real().child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: a lazy child, or a real one when a route sets its own log level. */
export function requestLogger(parent: FastifyBaseLogger, bindings: Record<string, unknown>, options: { level?: string }): FastifyBaseLogger {
  const p = parent as Parent;
  if (options.level || typeof p.isLevelEnabled !== "function") return parent.child(bindings, options);
  return new RequestLogger(p, bindings) as unknown as FastifyBaseLogger;
}
