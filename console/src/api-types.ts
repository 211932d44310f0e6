/** Shapes of the API's answers, read from the client's generated OpenAPI types (`paths`). */
import type { paths } from "@tessera/client";

/** The JSON a route answers with 200: `OkAnswer<"/api/keys/", "get">`. */
export type OkAnswer<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: { 200: { content: { "application/json": infer T } } };
} ? T : never;
