import { type Found, listElement, MISSING, ownProperty } from "./json-data.ts";

/** RFC 6901: `/a/b~1c/0` reads key `a`, then key `b/c`, then element 0. */
export function resolvePointer(document: unknown, pointer: string): Found {
  if (pointer === "") return document;
  if (!pointer.startsWith("/")) return MISSING;
  let current = document;
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    const next = Array.isArray(current) ? listElement(current, token) : ownProperty(current, token);
    if (next === MISSING) return MISSING;
    current = next;
  }
  return current;
}
