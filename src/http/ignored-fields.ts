import type { FastifyInstance } from "fastify";

/** The response header that names the unknown fields a request carried and the server ignored. */
export const IGNORED_FIELDS_HEADER = "x-tessera-ignored-fields";

// Enough to see a typo; a body of thousands of unknown keys must not make a header clients refuse.
const MAX_NAMED = 32;

const ignoredOf = new WeakMap<object, string[]>();

/** Records the fields validation dropped from one request part (its body or query object). */
export function noteIgnored(part: unknown, fields: string[]): void {
  if (part !== null && typeof part === "object" && fields.length > 0) ignoredOf.set(part, fields);
}

/** Names the ignored fields of every validated request in `x-tessera-ignored-fields` (`body.a.b, query.c`). */
export function reportIgnoredFields(app: FastifyInstance): void {
  // A callback hook: it runs on every request and finds nothing almost always.
  app.addHook("preHandler", (request, reply, done) => {
    const body = request.body !== null && typeof request.body === "object" ? ignoredOf.get(request.body) : undefined;
    const query = request.query !== null && typeof request.query === "object"
      ? ignoredOf.get(request.query) : undefined;
    if (body || query) {
      const all = [...(body ?? []), ...(query ?? [])];
      const named = all.slice(0, MAX_NAMED);
      if (all.length > MAX_NAMED) named.push(`... ${all.length - MAX_NAMED} more`);
      reply.header(IGNORED_FIELDS_HEADER, named.join(", "));
    }
    done();
  });
}
