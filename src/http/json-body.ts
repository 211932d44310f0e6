import type { FastifyInstance } from "fastify";
import { badRequest, unprocessable } from "../errors.ts";
import { MAX_JSON_DEPTH, mayBeTooDeep } from "../json-depth.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** The text of a short JSON body as it came (a cache key for reads such as retrieve), else null. */
    bodyText: string | null;
  }
}

/** The longest body whose text is kept as `bodyText`. */
export const MAX_BODY_TEXT = 4096;

/**
 * The `application/json` body parser. Like Fastify's own it refuses `__proto__` and
 * `constructor.prototype` keys (prototype poisoning of code that merges bodies into objects);
 * unlike it, the 400 says where the JSON is malformed.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.decorateRequest("bodyText", null);
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    if (body === "") return done(badRequest("Body cannot be empty when content-type is application/json"), undefined);
    let value: unknown;
    try {
      value = JSON.parse(body as string);
    } catch (error) {
      return done(badRequest(`Malformed JSON body: ${(error as Error).message}`), undefined);
    }
    const problem = mayHide(body as string) ? inspect(value) : null;
    if (!problem && (body as string).length <= MAX_BODY_TEXT) request.bodyText = body as string;
    done(problem, problem ? undefined : value);
  });
}

/**
 * Whether a JSON text can hold what `inspect` looks for: nesting needs two characters a level, and
 * the two keys appear in the text as such or escaped (`\u…`). Short plain bodies, such as every
 * retrieve, skip the walk.
 */
const mayHide = (text: string) =>
  mayBeTooDeep(text) || text.includes("__proto__") || text.includes("constructor") || text.includes("\\u");

/** One iterative pass over the parsed value (recursion is what this guards against). */
function inspect(root: unknown): Error | null {
  const stack: [unknown, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== "object") continue;
    if (depth >= MAX_JSON_DEPTH) {
      return unprocessable([{ loc: ["body"], msg: `JSON is nested deeper than ${MAX_JSON_DEPTH} levels`, type: "too_deep" }]);
    }
    if (Array.isArray(value)) {
      for (const item of value) stack.push([item, depth + 1]);
      continue;
    }
    if (Object.hasOwn(value, "__proto__")) return badRequest('JSON body must not contain a "__proto__" key');
    const ctor = (value as Record<string, unknown>).constructor;
    if (Object.hasOwn(value, "constructor") && ctor !== null && typeof ctor === "object" && Object.hasOwn(ctor, "prototype")) {
      return badRequest('JSON body must not contain a "constructor.prototype" key');
    }
    for (const item of Object.values(value)) stack.push([item, depth + 1]);
  }
  return null;
}
